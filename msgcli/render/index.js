(function(){
"use strict";
var rows=Array.prototype.slice.call(document.querySelectorAll("table.index tbody tr"));
var q=document.getElementById("q"),count=document.getElementById("count");
function apply(){var n=q.value.trim().toLowerCase(),shown=0;
 rows.forEach(function(r){var ok=!n||r.textContent.toLowerCase().indexOf(n)>=0;r.hidden=!ok;
 if(ok)shown++;});count.textContent=shown+" of "+rows.length+" logs";}
q.addEventListener("input",apply);apply();
})();
