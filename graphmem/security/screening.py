"""Write-time poisoning screen: is this text aimed at the agent rather than a fact about the world?

After A-MemGuard (arXiv 2510.02373), which argues that a poisoned record looks benign on its own and must be caught
by what it *asks for*, and the attacks it answers: AgentPoison (rare-token triggers optimised to pull a record into
retrieval) and MINJA (records that bridge an innocent question to a malicious instruction). This module is only the
cheap first line: explainable rules over the text, pure and fast, so a write can be quarantined with a reason a
person can read. It does not call a model and knows nothing about the store.

Each rule is a set of precompiled patterns, each with a weight (how sure a match alone makes us). A text's score is
``1 - prod(1 - w)`` over the patterns that matched (one hit per pattern; a weaker pattern of the same rule over the
same words adds nothing), so it is in [0, 1] and never falls when a hit is added; it is flagged at
``score >= threshold``. Agent-directed phrasings weigh >= 0.5 and flag alone; phrasings that also occur in ordinary
chat ("you are now", "call the function", ``rm -rf`` in a story) weigh less and flag only next to another hit.
``DEFAULT_THRESHOLD`` was chosen on the committed corpus ``tests/data/screening/`` (``benchmarks/screening_fp.py``
sweeps it), not on LoCoMo, which is kept as an untouched false-positive check.

Rule ids (stable): ``override``, ``tool_call``, ``exfiltration``, ``hidden_text``, ``trigger_string``,
``authority``, ``bridge``. Not covered: homoglyph spellings, paraphrases no pattern anticipates, AgentPoison
triggers that read as ordinary words, and rare-character CJK triggers.
"""

from __future__ import annotations

import re
import string
import unicodedata
from dataclasses import dataclass
from typing import Final

from graphmem.security.triggers import SPAN_MAX, trigger_hits

__all__ = ["DEFAULT_THRESHOLD", "ScreenHit", "Screening", "screen"]

DEFAULT_THRESHOLD: Final[float] = 0.5


@dataclass(frozen=True)
class ScreenHit:
    rule: str
    """Stable rule id: override, tool_call, exfiltration, hidden_text, trigger_string, authority, bridge."""
    span: str
    """The matched text (at most 80 characters), for the explanation."""
    weight: float


@dataclass(frozen=True)
class Screening:
    score: float
    flagged: bool
    hits: tuple[ScreenHit, ...]

    def reason(self) -> str:
        """One line: ``quarantined: score 0.83 (override: 'ignore previous instructions'; ...)``; "" without hits."""
        if not self.hits:
            return ""
        detail = "; ".join(f"{hit.rule}: {hit.span!r}" for hit in self.hits)
        return f"{'quarantined' if self.flagged else 'passed'}: score {self.score:.2f} ({detail})"


@dataclass(frozen=True)
class _Rule:
    rule: str
    weight: float
    pattern: re.Pattern[str]
    words: frozenset[str]
    """Gate: the pattern runs only when the text has one of these (lower-case) words, ..."""
    subs: tuple[str, ...]
    """... or one of these substrings (non-ASCII ones are looked for only in non-ASCII text), ..."""
    non_ascii: bool
    """... or, when set, the text is not ASCII, ..."""
    long_token: bool
    """... or, when set, it has 48+ characters without a space. A rule without any gate always runs."""


_I = re.IGNORECASE
_RULES: list[_Rule] = []


def _rule(rule: str, weight: float, gate: str, pattern: str, flags: int = _I) -> None:
    """Register a pattern behind a gate: words and substrings (``~`` for a space) without which it cannot match, a
    cheap test that spares most texts most regexes. A gate must never be narrower than its pattern."""
    tokens = [token.replace("~", " ") for token in gate.split()]
    words = frozenset(t for t in tokens if t.isascii() and t.isalpha())
    subs = tuple(t for t in tokens if t not in words and t not in ("<nonascii>", "<long>"))
    _RULES.append(_Rule(rule, weight, re.compile(pattern, flags), words, subs, "<nonascii>" in tokens,
                        "<long>" in tokens))


_ZP = "\u3002\uff1b\uff0c;,"  # Chinese full stop, semicolon, comma (NFKC turns the last two into ASCII)
_ZS = "\u3002\uff1b;\n"  # a Chinese sentence ends here

# --- override: attempts to replace the agent's instructions ----------------------------------------------------
_OBJ = r"(?:instructions?|prompts?|rules?|directions?|directives?|guidelines?|commands?|constraints?|context)"
_rule("override", 0.9, "ignore disregard forget bypass override discard drop",
      r"\b(?:ignore|disregard|forget|bypass|override|discard|drop)\s+(?:(?:all|any|the|your|my|of|every|these|those)"
      r"\s+){0,3}(?:previous|prior|above|earlier|preceding|former|original|existing|initial|system|safety|old|"
      rf"developer)\s+{_OBJ}")
_rule("override", 0.85, "ignore disregard", rf"\b(?:ignore|disregard)\s+(?:all|any|your)\s+(?:of\s+)?(?:your\s+)?"
      rf"{_OBJ}\b")
_rule("override", 0.85, "disregard", r"\bdisregard\s+(?:everything|anything|all|what(?:ever)?|the)?\s*(?:(?:you\s+"
      r"were\s+told|written|said|stated)\s+)?(?:above|before\s+this|so\s+far|previously)\b")
_rule("override", 0.85, "forget", r"\bforget\s+(?:everything|all|anything)\s+(?:you\s+(?:know|were\s+told|have\s+"
      r"been\s+told|learned)|(?:written|said|stated)\s+(?:above|before)|above|(?:from\s+)?(?:the\s+)?(?:previous|"
      r"prior|earlier)\s+(?:conversation|messages?|prompt))|\bforget\s+your\s+(?:instructions|rules|training|"
      r"guidelines|programming)")
_rule("override", 0.8, "you~are~now you~are~no", r"\byou\s+are\s+(?:now|no\s+longer)\s+(?:an?\s+)?(?:unrestricted|"
      r"unfiltered|uncensored|jailbroken|evil|free\s+(?:from|of)|bound|dan\b|in\s+(?:developer|dan|god)\s+mode|acting"
      r"\s+as|(?:\w+\s+){0,2}(?:ai|assistant|chatbot|language\s+model|model|agent)\b)")
_rule("override", 0.3, "you~are~now", r"\byou\s+are\s+now\s+(?:an?\s+)?\w+")
_rule("override", 0.85, "system", r"\bnew\s+system\s+(?:prompt|message|instructions?)\b|\bsystem\s+prompt\s+(?:"
      r"override|update|replaced|changed)\b")
_rule("override", 0.6, "instruction instructions directive directives prompt", r"\b(?:your|the)\s+(?:real|true|"
      r"actual|hidden|secret|new|updated)\s+(?:instructions?|system\s+prompt|directives?)\s+(?:is|are)\b")
_rule("override", 0.4, "instruction instructions", r"\b(?:new|updated|revised)\s+instructions?\s*:")
_rule("override", 0.55, "from~now", r"\bfrom\s+now\s+on,?\s+you\s+(?:will|must|shall|should|are\s+to|may\s+only)\s+"
      r"(?:only\s+|always\s+|never\s+)?(?:respond|answer|reply|act\s+as|ignore|obey|output|pretend|comply|follow)")
_rule("override", 0.9, "忽略 无视 不要理会 不要管 忘记 忘掉 抛开 丢弃",
      r"(?:忽略|无视|不要理会|不要管|忘记|忘掉|抛开|丢弃)掉?(?:你)?"
      r"(?:之前|以上|上面|前面|先前|此前|上述|原有|原来|原先|所有|全部|一切|系统)的?(?:所有|全部|一切)?的?(?:指令|指示|"
      r"规则|提示词?|设定|命令|约束|限制|要求|规定)|忽略(?:以上|上述)所有|忘掉你被告知的一切")
_rule("override", 0.8, "你现在 你不再受 你没有任何", rf"你现在(?:是|成为了?|扮演)(?:一个|一名)?[^{_ZP},.!?\s]{{0,8}}"
      r"(?:AI|人工智能|助手|机器人|模型|智能体)(?!专家|工程师|研究员|公司|课程|产品|老师)|你(?:现在)?(?:不再受|没有任何)"
      r"(?:任何)?(?:限制|规则|约束)")
_rule("override", 0.85, "系统提示 系统指令 系统设定", r"新的?系统(?:提示词?|指令|设定)|"
      r"系统提示词(?:已)?(?:更新|变更|改为|如下|覆盖)|系统提示(?:已)?(?:变更为|改为|如下[:\uff1a])")
_rule("override", 0.55, "从现在",
      r"从现在(?:起|开始)[,\uff0c]?你(?:只能|必须|只会|将只|要一直|永远)(?:回答|回复|输出|服从|遵守|扮演)")

# --- tool_call: directives to act, call tools, run commands, move money -----------------------------------------
_rule("tool_call", 0.6, "_", r"\b(?:call|invoke|trigger|run|execute|use)\s+(?:the\s+)?(?:(?:tool|function|api|action)"
      r"\s+)?[`'\"]?[a-z][a-z0-9]*_[a-z0-9_]+[`'\"]?\s*(?:\(|tool\b|function\b|api\b|endpoint\b|action\b|with\b|to\b|"
      r"and\b|now\b|$|[.,;])")
_rule("tool_call", 0.6, "invoke call", r"\b(?:invoke\s+(?:the|this|that|your)\s+(?:[\w-]+\s+)?(?:tool|function|plugin"
      r"|api)|call\s+(?:the|this|that|your)\s+(?:[\w-]+\s+)?(?:tool|plugin)\s+(?:with|using|passing|now|immediately|"
      r"named|called))\b")
_rule("tool_call", 0.45, "call invoke", r"\b(?:call|invoke)\s+(?:the|this|that|your)\s+(?:[\w-]+\s+)?(?:tool|"
      r"function|plugin)\b(?!\s*(?:rental|shop|store|box|kit|shed|belt|bag|library|guy))")
_rule("tool_call", 0.4, "rm~- curl :()", r"\brm\s+-(?:rf|fr|r)\b|\bcurl\s+\S+\s*\|\s*(?:ba|z)?sh\b|:\(\)\s*\{\s*:\|:&")
_rule("tool_call", 0.7, "run execute exec", r"(?:^|[.!:;,\n]\s*|\b(?:please|now|then|immediately|assistant,?|agent,?|"
      r"you\s+(?:must|should|will))\s+)(?:run|execute|exec)\s+(?:the\s+following|this|these)?\s*(?:shell\s+|bash\s+|"
      r"terminal\s+)?(?:command|code|script|payload)s?\b")
_rule("tool_call", 0.4, "run execute", r"\b(?:run|execute)\s+`[^`\n]{2,}`")  # also "run `make test`" among developers
_rule("tool_call", 0.75, "{ < function_call", r"\{\s*[\"'](?:name|function|tool|tool_name|action|function_call)"
      r"[\"']\s*:\s*[\"'{][^}]{0,80}[\"'](?:arguments|parameters|args|input|action_input|params)[\"']\s*:|<\s*/?\s*"
      r"(?:tool_call|function_call|tool_use|invoke)\b|\"function_call\"\s*:")
_rule("tool_call", 0.7, "action", r"^\s*Action\s*:\s*\w+\s*$[\s\S]{0,40}^\s*Action\s+Input\s*:", re.MULTILINE)
_rule("tool_call", 0.45, "http https www.", r"\b(?:send|post|forward|upload|submit|transmit)\b[^.\n]{0,60}?\bto\s+"
      r"(?:https?://|www\.)")
_rule("tool_call", 0.35, "replying answering responding telling informing alerting notifying user silently",
      r"\b(?:before|instead\s+of)\s+(?:replying|answering|responding)\b|\bwithout\s+(?:telling|informing|alerting|"
      r"notifying)\s+(?:the\s+)?(?:user|them|anyone)\b|\b(?:do\s+not|don't|never)\s+(?:tell|inform|mention\s+(?:this|"
      r"it)\s+to|alert)\s+the\s+user\b|\bsilently\s+(?:send|forward|call|run|execute|upload|delete)")
_rule("tool_call", 0.7, "transfer wire send move", r"\b(?:transfer|wire|send|move)\s+(?:\$\s?[\d,.]+|[\d,.]+\s*(?:"
      r"dollars|usd|eur|euros|btc|bitcoin|eth)|(?:the\s+|all\s+(?:of\s+)?(?:the\s+)?(?:user'?s?\s+)?)?(?:money|funds|"
      r"balance|bitcoin|crypto|savings))\s+(?:to|into)\s+(?:the\s+following\s+|this\s+)?(?:account|wallet|iban|"
      r"address|[A-Z0-9]{8,})")
_rule("tool_call", 0.55, "always only", r"(?:\byou\s+(?:should|must|will|shall|need\s+to|have\s+to)\s+|(?:^|[.!;:\n]"
      r"\s*))(?:always|only)\s+(?:answer|respond|reply|output|recommend|return)\s+(?:with|by|using|that)\s+(?:[\"'"
      r"\u201c\u2018]|the\s+(?:word|phrase|following|same)|a\s+link|only\b|exactly\b|yes\b|no\b|this\b)")
_rule("tool_call", 0.55, "only", r"\b(?:reply|respond|answer|say|state)\s+only\s+(?:that|with)\b")
# directives addressed to the user through the agent, or to the agent in the third person: weak alone ("tell the user
# that the build is green" is a developer's note), they flag next to another hit
_rule("tool_call", 0.45, "user users customer customers requester visitor assistant agent ai chatbot",
      r"\b(?:tell|ask|instruct|direct|remind|advise|urge|warn|inform|notify|get|have|make)\s+(?:the\s+)?(?:user|customer|"
      r"requester|visitor)s?\b|\bthe\s+(?:user|customer|requester)\s+(?:must|should|has\s+to|needs\s+to|is"
      r"\s+required\s+to|ought\s+to)\s+(?:first\s+)?(?:visit|go\s+to|open|click|sign|log|enter|paste|run|install|download|"
      r"re-?verify|verify|confirm|call|send|upload)\b|\bthe\s+(?:assistant|agent|ai|chatbot)\s+(?:should|must|needs\s+to|has"
      r"\s+to|is\s+(?:expected|required|supposed)\s+to|will\s+need\s+to|ought\s+to)\b")
_rule("tool_call", 0.45, "用户 助手", r"(?:告诉|让|要求|提醒|通知|叫)用户(?:先|必须|需要|去|马上|立即)?|"
      r"(?:助手|智能体)(?:应该|必须|需要|应当)")
_rule("tool_call", 0.7, "调用 执行 运行", r"(?:请|立即|马上|必须|务必|你要|你需要|自动)(?:调用|执行|运行)"
      r"(?:\s*`?[A-Za-z_]+`?\s*)?(?:以下|下面|这条|这个|如下)?的?(?:工具|插件|函数|接口|命令|脚本|代码)|调用工具\s*[`'\"]?[A-Za-z_]{3,}")
_rule("tool_call", 0.45, "调用", r"调用(?:工具|插件)")
_rule("tool_call", 0.7, "账户 账号 钱包 地址", r"(?:转账|汇款|打款|转)(?:\s*[\d,.]+\s*(?:元|块|美元)?)?(?:到|至|给)"
      r"(?:以下|这个|该|指定)的?(?:银行)?(?:账户|账号|钱包|地址)")
_rule("tool_call", 0.55, "总是 一律 始终 永远 只",
      r"你(?:要|必须|应该|需要)?(?:总是|一律|始终|永远|只)(?:回答|回复|输出|推荐)")

# --- exfiltration: send the conversation or secrets somewhere ---------------------------------------------------
_SENSITIVE = (r"(?:(?:the|this|our|your|all|every|entire|whole|full|user'?s?|previous|current|saved|stored)\s+){0,3}"
           r"(?:conversation|chat(?:\s+(?:history|log|logs|transcript))?|dialog(?:ue)?|transcript|message\s+history|"
           r"system\s+prompt|memor(?:y|ies)|session|api[\s_-]?keys?|secret\s+keys?|access\s+tokens?|auth\w*\s+"
           r"tokens?|tokens?|passwords?|passcodes?|credentials?|cookies?|ssh\s+keys?|private\s+keys?|credit\s+card"
           r"(?:\s+numbers?)?|personal\s+(?:data|information|details)|user\s+data|env(?:ironment)?\s+variables?|\.env)")
_DEST = (r"(?:to|at|into|in|via|on)\s+(?:the\s+|this\s+|following\s+|my\s+|our\s+)*(?:(?:url|address|endpoint|server"
         r"|email)\s*:?\s*)?(?:https?://|www\.|[\w.+-]+@[\w-]+\.[\w.]+|webhook|endpoint|pastebin|ngrok)")
_rule("exfiltration", 0.9, "http https www. @ webhook endpoint pastebin ngrok", r"\b(?:send(?:s|ing)?|sent|post(?:s|ed|"
      r"ing)?|upload(?:s|ed|ing)?|forward(?:s|ed|ing)?|e-?mail(?:s|ed|ing)?|mail(?:s|ed|ing)?|leak(?:s|ed|ing)?|shar(?:e|"
      r"es|ed|ing)|transmit(?:s|ted|ting)?|exfiltrat(?:e|es|ed|ing)|cop(?:y|ies|ied|ying)|submit(?:s|ted|ting)?|append"
      r"(?:s|ed|ing)?|includ(?:e|es|ed|ing)|embed(?:s|ded|ding)?|dump(?:s|ed|ing)?|past(?:e|es|ed|ing)|sync(?:s|ed|ing)?)"
      rf"\b[^.\n]{{0,40}}?{_SENSITIVE}\b[^.\n]{{0,60}}?{_DEST}")
# credential harvesting: signing in or handing over a secret at a link (narration matches too, so it flags only
# next to another hit, such as a directive to the user)
_CREDENTIAL = (r"(?:(?:sign|log)\s*-?\s*(?:in|on)|(?:re-?)?(?:enter|type|provide|submit|confirm|verify|update)\s+"
               r"(?:(?:your|their|his|her|the|my|our|a)\s+)?(?:\w+\s+)?(?:passwords?|passcodes?|credentials|login|pin|card\s+(?:number|"
               r"details)|(?:security|verification|one-time|2fa|otp)\s+codes?|account|identity))")
_rule("exfiltration", 0.45, "http https www.", rf"\b{_CREDENTIAL}\b[^.\n]{{0,40}}?\b(?:at|on|via|through|into|using)\s+"
      r"(?:https?://|www\.)|(?:https?://|www\.)\S+[^\n]{0,120}?\b(?:sign|log)\s*-?\s*(?:in|on)\s+(?:there|at\s+that\s+"
      r"(?:link|site|address|page))\b")
_rule("exfiltration", 0.45, "http https www.", rf"(?:在|到|访问|打开)\s*(?:https?://|www\.)\S+\s*(?:上|里|中)?[^{_ZP}]{{0,6}}?"
      r"(?:登录|登入|输入密码|输入验证码|验证账户|验证账号|重新验证)|"
      rf"(?:登录|输入|填写|提交|验证)[^{_ZP}]{{0,10}}?(?:账号|账户|密码|验证码|银行卡号?|信用卡|身份信息)[^{_ZP}]{{0,8}}?"
      r"(?:https?://|www\.)")
_rule("exfiltration", 0.7, "include append embed put encode", rf"\b(?:include|append|embed|put|encode)\s+{_SENSITIVE}"
      r"\s+"
      r"(?:in|into|inside)\s+(?:the\s+|your\s+|every\s+|each\s+)?(?:url|link|image|query|reply|response|answer)s?\b")
_rule("exfiltration", 0.6, "reveal print output disclose leak dump repeat", r"\b(?:reveal|print|output|disclose|leak|"
      r"dump|repeat)\s+(?:all\s+)?(?:your|the)\s+(?:system\s+prompt|hidden\s+instructions|api\s+keys?|secret\s+keys?|"
      r"credentials|stored\s+passwords|environment\s+variables)")
_rule("exfiltration", 0.85, "http https www. @ 服务器 网址 外部",
      r"(?:对话|会话|聊天记录|对话记录|系统提示词?|密码|密钥|口令|"
      rf"令牌|token|API\s*key|凭证|凭据|个人信息|用户数据|记忆)[^{_ZP}]{{0,14}}(?:发送|发|上传|转发|提交|泄露|传|同步)(?:到|给|"
      rf"至)[^{_ZP}]{{0,8}}?(?:https?://|www\.|[\w.+-]+@[\w-]+\.\w+|服务器|网址|外部)")
_rule("exfiltration", 0.7, "对话 会话 系统提示", r"(?:把|将)(?:整个|全部|所有|完整的|本次|这次)?的?"
      r"(?:对话|会话|系统提示词?)(?:内容|记录)?(?:都|全部)?(?:发送|上传|转发|同步|提交)(?:到|至|给)")

# --- hidden_text: content a reader does not see (matched on the raw text) ---------------------------------------
_rule("hidden_text", 0.6, "<nonascii>", "[\u200b\u200c\u2060-\u2064\u180e]|(?<=.)\ufeff"
      "|(?<![\U0001f000-\U0001faff\u2600-\u27bf\ufe0f])\u200d", re.DOTALL)  # a ZWJ inside an emoji is fine
_rule("hidden_text", 0.9, "<nonascii>", "[\U000e0000-\U000e007f]")  # tag characters: ASCII smuggling
_rule("hidden_text", 0.7, "<nonascii>", "[\u202a-\u202e\u2066-\u2069]")  # bidi overrides and isolates
_rule("hidden_text", 0.6, "<!--", r"<!--[\s\S]*?-->|<!--")
_rule("hidden_text", 0.8, "< javascript onerror onload", r"<\s*(?:script|iframe|object|embed)\b[^>]*>[\s\S]*?<\s*/|"
      r"<\s*(?:script|iframe|img|object|embed)\b[^>]*\s(?:src|onerror|onload)\s*=|\bjavascript\s*:[^\s]")
_rule("hidden_text", 0.4, "<", r"<\s*(?:script|iframe|object|embed)\b")
_rule("hidden_text", 0.7, "display visibility font opacity", r"display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*"
      r":\s*0(?:px)?\b|opacity\s*:\s*0\b")
_rule("hidden_text", 0.75, "![", r"!\[[^\]]*\]\(\s*<?https?://[^)\s]*\?[^)\s]*=[^)]*\)")
_rule("hidden_text", 0.55, "<long>", r"(?<![A-Za-z0-9+/])(?=[A-Za-z0-9+/]{0,200}[0-9])(?=[A-Za-z0-9+/]{0,200}[A-Z])"
      r"(?=[A-Za-z0-9+/]{0,200}[a-z])[A-Za-z0-9+/]{48,}={0,2}", 0)
_rule("hidden_text", 0.6, "base64", r"\bdata:[\w/+.-]+;base64,")

# --- authority: claims to speak for the system or an administrator ----------------------------------------------
_rule("authority", 0.7, "system sys admin administrator developer operator", r"(?:^|\n)\s*(?:[\[<(]|#{1,3}\s*|\*\*)?"
      r"\s*(?:(?:SYSTEM|ADMIN|ADMINISTRATOR|DEVELOPER|OPERATOR)(?:\s+(?:MESSAGE|PROMPT|NOTE|OVERRIDE|NOTICE|UPDATE|"
      r"INSTRUCTIONS?))?|(?:System|Admin|Developer)\s+(?:[Mm]essage|[Pp]rompt|[Oo]verride|[Nn]otice|[Ii]nstructions?))"
      r"\s*(?:[\])>]|\*\*)?\s*:|[\[<]\s*(?:system|sys|admin|developer)\s*[\]>]", 0)
_rule("authority", 0.8, "<| [inst [/inst <<sys", r"<\|\s*(?:im_start|im_end|system|endoftext|assistant|user)\s*\|>|"
      r"\[/?INST\]|<</?SYS>>")
_rule("authority", 0.55, "as~your", r"\bas\s+your\s+(?:system\s+)?(?:administrator|admin|developer|creator|owner|"
      r"operator|programmer|supervisor|sysadmin|maker)\b")
_rule("authority", 0.7, "override", r"\b(?:official\s+|mandatory\s+|emergency\s+|priority\s+)?(?:policy|security|"
      r"admin|administrator|system|safety)\s+override\b|\boverride\s+(?:code|authori[sz]ation|protocol)\b")
_rule("authority", 0.65, "mode", r"\b(?:you\s+are\s+(?:now\s+)?in|(?:enter|enable|activate|switch\s+to)\s+)(?:"
      r"developer|dev|debug|god|admin|dan|jailbreak|unrestricted)\s+mode\b(?!\s+(?:on|in|for)\b)")
_rule("authority", 0.7, "official authorized authorised verified priority mandatory instruction instructions directive "
      "directives", r"\b(?:official|authori[sz]ed|verified|priority|mandatory)\s+(?:instruction|message|directive|"
      r"notice|order)s?\s+from\s+(?:the\s+|your\s+)?(?:system|admin\w*|developers?|openai|anthropic|operator|security"
      r"\s+team)|\b(?:instruction|directive)s?\s+from\s+(?:the\s+|your\s+)?(?:system|developers?|operator)\b")
_rule("authority", 0.7, "系统 管理员 开发者", r"[\u3010\[](?:系统|管理员|开发者)(?:指令|提示|消息|通知)?[\u3011\]]|"
      r"系统(?:指令|提示词|消息)[:\uff1a]")
_rule("authority", 0.6, "作为你的", r"作为你的(?:系统)?(?:管理员|开发者|创造者|主人|操作员)")
_rule("authority", 0.7, "管理员 开发者 官方 系统 最高", r"(?:系统)?(?:管理员|开发者|官方|系统)"
      r"(?:要求|命令|指示|授权)(?:你|助手|AI|模型|智能体)|(?:最高|官方|管理员)(?:优先级|权限)(?:指令|命令|覆盖)|官方(?:政策|策略)(?:覆盖|更新)")
_rule("authority", 0.65, "模式", r"你(?:现在)?(?:已经?)?(?:进入|处于|切换到|开启了?)(?:开发者|调试|上帝|管理员)模式")

# --- bridge: MINJA-style records that tie a future question to an instruction -----------------------------------
_WHEN = r"\b(?:whenever|every\s+time|each\s+time|any\s*time|if|when|once)\s+"
_DIRECTIVE = (r"(?:you\s+(?:should|must|need\s+to|have\s+to|will|shall)|\binstead\b|\balways\s+(?:answer|respond|reply"
              r"|recommend|redirect|refer|claim|state|tell)|\b(?:respond|reply|answer)\s+(?:with|that|by)|"
              r"\b(?:redirect|refer)\s+(?:them|him|her|it)\b|\bnever\s+(?:mention|reveal|tell)|\bdo\s+not\s+answer)")
_rule("bridge", 0.8, "user human requester", rf"{_WHEN}(?:the\s+|a\s+|any\s+)?(?:user|human|requester)\s+"
      r"(?:\w+\s+)?(?:asks?|inquires?|quer(?:y|ies)|mentions?|requests?|searches|types?|says?|wants?|brings?\s+up)\b"
      rf"[^.\n]{{0,100}}?{_DIRECTIVE}")
_rule("bridge", 0.45, "user users customer", rf"{_WHEN}(?:the\s+|a\s+)?(?:user|users|customer)\s+(?:asks?|inquires?|"
      r"mentions?|requests?)\b")
_rule("bridge", 0.65, "anyone anybody someone somebody people", rf"{_WHEN}(?:anyone|anybody|someone|somebody|people)"
      r"\s+(?:asks?|inquires?|mentions?|requests?|searches)\b[^.\n]{0,100}?(?:you\s+(?:must|shall|are\s+to)\s+(?:"
      r"always\s+)?(?:recommend|redirect|refer|answer|reply|respond|claim|insist|(?:tell\s+them|say)\s+that)|\binstead\b|\b(?:respond|reply|answer)\s+(?:with|that|by)|"
      r"\bredirect\b|\balways\s+(?:recommend|redirect|refer|claim))")
_rule("bridge", 0.65, "answer", r"\bthe\s+(?:correct\s+|right\s+|only\s+|true\s+|best\s+)?answer\s+to\s+(?:any|every|"
      r"all|each)\s+(?:question|query|request)s?\s+(?:about|regarding|on|concerning|involving|related\s+to)\b[^.\n]"
      r"{1,60}?\bis\s+(?:to\b|always\b|simply\b|:)")
_rule("bridge", 0.7, "question questions query queries request requests task tasks", r"\bfor\s+(?:any|all|every|each)"
      r"\s+(?:future\s+)?(?:question|query|request|task)s?\s+(?:about|regarding|involving|related\s+to|on|concerning|"
      r"mentioning)\b[^.\n]{0,80}?,\s*(?:always|you\s+(?:should|must)|respond|answer|reply|use|refer|redirect|"
      r"recommend|say)\b")
_rule("bridge", 0.6, "under", r"\b(?:data|records?|information|results?|history)\s+(?:of|for)\s+[^.\n]{1,40}?\s+(?:is|"
      r"are|has\s+been|have\s+been)\s+(?:now\s+)?(?:stored|saved|moved|kept|filed|mapped)\s+under\b")
_rule("bridge", 0.4, "instead", r"\b(?:you|we|the\s+agent)\s+(?:should|must)\s+(?:always\s+)?(?:refer\s+to|look\s+up|"
      r"use|query|check)\s+[^.\n]{1,40}?\s+instead(?:\s+of)?\b")
_rule("bridge", 0.75, "用户 客户 顾客 使用者", r"(?:每当|每次|只要|如果|当|一旦)(?:用户|客户|顾客|使用者)"
      rf"(?:再)?(?:问|询问|提到|问到|问起|咨询|搜索|提出)[^{_ZS}]{{0,40}}?(?:你(?:都|就)?(?:应该|要|必须|需要)|都(?:要)?(?:回答|回复|说|"
      r"推荐)|一律|改为|而是|就(?:回答|回复|推荐|说|告诉)|直接(?:回答|回复|推荐))")
_rule("bridge", 0.65, "有人 任何人 别人", r"(?:每当|每次|只要|如果|当)(?:有人|任何人|别人)(?:问|询问|提到|问到|问起)"
      rf"[^{_ZS}]{{0,40}}?(?:你(?:都|就)?(?:应该|要|必须|需要)|一律|而是|改为)")
_rule("bridge", 0.7, "问题 无论 不管", rf"(?:对于|关于)(?:任何|所有|一切)(?:关于|有关)?[^{_ZS}]{{0,12}}?的?问题"
      r"[\uff0c,]?(?:正确)?(?:答案|回答)(?:都|一律)?(?:是|为)|(?:无论|不管)(?:谁|用户|什么人)问(?:起|到)?"
      rf"[^{_ZS}]{{0,20}}?(?:都|一律)(?:回答|回复|说成|推荐|改为)")
# a procedure that puts a step before the answer ("first run X, then answer"; "the helpful first step is to ...")
_rule("bridge", 0.35, "answer reply respond answering replying responding anything step next",
      r"\b(?:and\s+)?then\s+(?:answer|reply|respond)(?:ing)?\b|\b(?:answer|reply|respond)\s+(?:only\s+)?(?:after|once)\s+"
      r"(?:that|this|it|they)\b|\bbefore\s+anything\s+else\b|\b(?:helpful|right|correct|required|necessary|proper|best)"
      r"\s+first\s+step\s+is\s+to\b|\b(?:that|this)\s+(?:step\s+)?first\s+next\s+time\b")
_rule("bridge", 0.35, "然后 之后 第一步", r"然后(?:再)?(?:回答|回复|作答)|(?:之后|以后)再(?:回答|回复)|"
      r"第一步(?:是|就是|应该是)先?")
_rule("override", 0.6, "ignore disregard", r"\b(?:ignore|disregard)\s+what(?:ever)?\s+(?:the\s+)?(?:(?:chat|"
      r"conversation|message)\s+)?(?:conversation|context|chat|log|logs|transcript|memory|memories|documents?|sources?|records?|history)\s+(?:says?|said|shows?|contains?)\b")
_rule("bridge", 0.6, "以后", r"以后(?:每当|每次|只要)(?:用户)?(?:问|询问|提到)")

_INVISIBLE = re.compile("[\u200b-\u200d\u2060-\u2064\u180e\ufeff\u202a-\u202e\u2066-\u2069\U000e0000-\U000e007f]")
_NOT_LETTER = str.maketrans(dict.fromkeys(string.digits + string.punctuation, " "))
_RULES.sort(key=lambda entry: -entry.weight)  # strongest first: an overlapping weaker pattern then adds nothing
_ALWAYS = tuple(i for i, e in enumerate(_RULES) if not (e.words or e.subs or e.non_ascii or e.long_token))
_NON_ASCII = tuple(i for i, e in enumerate(_RULES) if e.non_ascii)
_LONG = tuple(i for i, e in enumerate(_RULES) if e.long_token)
_BY_WORD: dict[str, list[int]] = {}
for _i, _entry in enumerate(_RULES):
    for _word in _entry.words:
        _BY_WORD.setdefault(_word, []).append(_i)
_GATE_WORDS = frozenset(_BY_WORD)
_ASCII_SUBS = tuple((sub, i) for i, e in enumerate(_RULES) for sub in e.subs if sub.isascii())
_OTHER_SUBS = tuple((sub, i) for i, e in enumerate(_RULES) for sub in (*e.subs, *e.words) if not sub.isascii()
                    or sub in e.words)


def _normalise(text: str) -> str:
    """NFKC (full-width letters become ASCII), invisible characters removed."""
    return text if text.isascii() else _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))


def _candidates(tokens: list[str], is_ascii: bool) -> list[int]:
    """Indexes (strongest first) of the rules whose gate the text opens."""
    lowered = " ".join(tokens).lower()  # spaces collapsed, so that a gate "you are now" survives "you  are\nnow"
    selected = set(_ALWAYS)
    if max(map(len, tokens), default=0) >= 48:
        selected.update(_LONG)
    for word in _GATE_WORDS.intersection(lowered.translate(_NOT_LETTER).split()):
        selected.update(_BY_WORD[word])
    selected.update(i for sub, i in _ASCII_SUBS if sub in lowered)
    if not is_ascii:  # without spaces (Chinese) a word may touch other letters: look for it as a substring
        selected.update(_NON_ASCII)
        selected.update(i for sub, i in _OTHER_SUBS if sub in lowered)
    return sorted(selected)


def _combine(weights: list[float]) -> float:
    remaining = 1.0
    for weight in weights:
        remaining *= 1.0 - min(max(weight, 0.0), 1.0)
    return round(1.0 - remaining, 6)


def screen(text: str, *, threshold: float = DEFAULT_THRESHOLD) -> Screening:
    """Screen one text about to be written to memory. Pure (same text, same result) and fast."""
    if not text or text.isspace():
        return Screening(0.0, False, ())
    plain = _normalise(text)
    tokens = plain.split()
    hits: list[ScreenHit] = []
    taken: dict[str, list[tuple[int, int]]] = {}
    for index in _candidates(tokens, text.isascii()):
        entry = _RULES[index]
        seen = taken.setdefault(entry.rule, [])
        for match in entry.pattern.finditer(text if entry.rule == "hidden_text" else plain):
            start, end = match.start(), max(match.end(), match.start() + 1)
            if any(start < e and s < end for s, e in seen):
                continue  # a weaker pattern of the same rule re-reading the same words is not new evidence
            seen.append((start, end))
            span = _INVISIBLE.sub("", match.group()).strip() or " ".join(f"U+{ord(c):04X}" for c in match.group()[:4])
            hits.append(ScreenHit(entry.rule, span[:SPAN_MAX], entry.weight))
            break
    hits.extend(ScreenHit("trigger_string", span, weight) for span, weight in trigger_hits(plain, tokens))
    score = _combine([hit.weight for hit in hits])
    return Screening(score, bool(hits) and score >= threshold, tuple(hits))
