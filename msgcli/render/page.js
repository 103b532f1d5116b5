(function(){
"use strict";
var cards=Array.prototype.slice.call(document.querySelectorAll("main .msg"));
var texts=null,q=document.getElementById("q"),count=document.getElementById("count");
var sel={role:document.getElementById("f-role"),name:document.getElementById("f-name"),
tool:document.getElementById("f-tool")};
function apply(){
 var needle=q?q.value.trim().toLowerCase():"",role=sel.role?sel.role.value:"",
 name=sel.name?sel.name.value:"",tool=sel.tool?sel.tool.value:"",shown=0;
 if(needle&&!texts){texts=cards.map(function(c){return c.textContent.toLowerCase();});}
 for(var i=0;i<cards.length;i++){
  var c=cards[i],d=c.dataset,ok=true;
  if(role&&d.role!==role)ok=false;
  if(ok&&name&&d.name!==name)ok=false;
  if(ok&&tool&&(d.tools||"").split("\n").indexOf(tool)<0)ok=false;
  if(ok&&needle&&texts[i].indexOf(needle)<0)ok=false;
  c.hidden=!ok;if(ok)shown++;
 }
 if(count)count.textContent=shown+" of "+cards.length+" messages";
}
var timer=0;
if(q)q.addEventListener("input",function(){clearTimeout(timer);timer=setTimeout(apply,120);});
Object.keys(sel).forEach(function(k){if(sel[k])sel[k].addEventListener("change",apply);});
document.addEventListener("click",function(e){
 var b=e.target.closest&&e.target.closest("button.id");
 if(!b)return;
 var id=b.getAttribute("data-id");
 function done(){b.classList.add("copied");setTimeout(function(){b.classList.remove("copied");},900);}
 if(navigator.clipboard&&navigator.clipboard.writeText){navigator.clipboard.writeText(id).then(done,
  function(){});}
 else{var r=document.createRange();r.selectNodeContents(b);var s=getSelection();
  s.removeAllRanges();s.addRange(r);}
});
apply();
})();
