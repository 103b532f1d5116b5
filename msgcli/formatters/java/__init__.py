"""The AgentScope Java formatters' rules (``agentscope-ai/agentscope-java`` @ ``c2d43f86e``).

One module per provider builds the request the Java formatter would build:
:mod:`.openai` (``OpenAIChatFormatter`` / ``OpenAIMultiAgentFormatter``),
:mod:`.dashscope` (``DashScopeChatFormatter`` / ``DashScopeMultiAgentFormatter``, their
``format`` path, used for the text-generation API) and :mod:`.anthropic`
(``AnthropicChatFormatter`` / ``AnthropicMultiAgentFormatter``, plus the separate
``system`` parameter the Anthropic model takes from the first system message); what they
share is :mod:`.common`. Each module's ``FORMATTER`` is what the AgentScope Java dialect
names in its ``formatters``.

The Java formatters read local files, download nothing, and write base64 tool
output to temporary files. msgcli touches neither the file system nor the
network: a local path stays a path, a temporary file is shown as a placeholder,
and a note says so.
"""
