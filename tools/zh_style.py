"""The Chinese edition's typography (issue 38), as code the build and the tests share.

Spacing is decided by the characters a reader sees on either side, whatever
Markdown markup (``**``, ``*``, a role, a link) stands between them:

- Chinese next to Chinese or to full-width punctuation: no space
  (``这是**两个**序列``, ``的{term}`方差 <…>```, ``**下一章**：``);
- full-width punctuation never has a space on either side;
- Chinese next to Latin letters, digits, code or math: one space
  (``第 3 章``, ``用 softmax 归一化``), as d2l-zh writes.

CommonMark cannot open or close emphasis between a letter and punctuation
(``种**{term}`…`**（`` or ``**下一章：**第``): `cjk_emphasis` puts an empty HTML
comment ``<!---->`` there when the Chinese book is generated, which parses and
shows nothing, so the catalogs keep the natural text.
"""
import re
import unicodedata

CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
FULL_PUNCT = "，。：；！？、（）“”‘’《》【】「」—…～"
CJK_RE = re.compile(f"[{CJK}]")
FULL_RE = re.compile(f"[{FULL_PUNCT}]")

# one token of a Markdown message: (pattern, what a reader sees of it)
#   None: markup that shows nothing (emphasis, link brackets, tags);
#   a function of the match: its visible text (its first and last characters count)
_TOKENS = [
    (r"(?<![^\n])[ \t]*:::+[^\n]*", lambda m: "\0"),          # a colon fence line
    # a heading's #, a list item's marker, a quote's >: the space after it is Markdown's
    (r"(?<![^\n])[ \t]*(?:#{1,6}|[-*+]|\d+[.)]|>)[ \t]+", lambda m: "\n"),
    (r"\$\$.*?\$\$", lambda m: "X"),
    (r"\$[^$\n]+\$", lambda m: "X"),
    (r"\{glue(?::\w+)?\}`[^`]*`", lambda m: "0"),             # a glued number
    (r"\{cite(?::\w+)?\}`[^`]*`", lambda m: "["),             # [Author, year]
    (r"\{(?:eq|numref)\}`[^`]*`", lambda m: "("),
    (r"\{[\w:-]+\}`([^`<]*?)\s*<[^`]*>`", lambda m: m.group(1) or "\0"),
    (r"\{(?:term)\}`([^`]*)`", lambda m: m.group(1)),
    (r"\{[\w:-]+\}`[^`]*`", lambda m: "\0"),                  # a title we do not know here
    (r"`[^`\n]+`", lambda m: "X"),
    (r"\]\([^)\s]*\)|!?\[(?=[^\]\n]*\]\()", None),
    (r"\*+|_{2}", None),
    (r"<!---->|</?[A-Za-z][^<>\n]*>", None),
    (r"[ \t]+", " "),
    (r"\n", "\n"),
    (r".", lambda m: m.group(0)),
]
_COMPILED = [(re.compile(p, flags=re.S), shown) for p, shown in _TOKENS]


def fenced(text):
    """{start: end} of the walls a fence makes: a code block as a whole, a directive's
    opening and closing lines (the text inside a directive such as ```{exercise} is prose)."""
    walls, pos, code, depth = {}, 0, None, 0
    for line in text.splitlines(keepends=True):
        m = re.match(r"[ \t]*(`{3,}|~{3,})(.*)", line)
        if m:
            info = m.group(2).strip()
            if code is not None:
                if not info:
                    walls[code] = pos + len(line.rstrip("\n"))
                    code = None
            elif info.startswith("{"):
                depth += 1
                walls[pos] = pos + len(line.rstrip("\n"))
            elif info or not depth:
                code = pos
            else:
                depth -= 1
                walls[pos] = pos + len(line.rstrip("\n"))
        pos += len(line)
    if code is not None:
        walls[code] = len(text)
    return walls


def tokens(text):
    """[(start, end, shown)]: shown is None for invisible markup, " " for a space
    run, "\\n" for a line break, else the visible text (a wall "\\0" where unknown)."""
    out, i, walls = [], 0, fenced(text)
    while i < len(text):
        if i in walls:
            out.append((i, walls[i], "\0"))
            i = walls[i]
            continue
        for pattern, shown in _COMPILED:
            m = pattern.match(text, i)
            if m and m.end() > i:
                out.append((i, m.end(), shown(m) if callable(shown) else shown))
                i = m.end()
                break
    return out


def _kind(ch):
    if not ch or ch in "\0\n":
        return "wall"
    if CJK_RE.match(ch):
        return "cjk"
    if FULL_RE.match(ch):
        return "punct"
    return "latin" if ch.isalnum() or ch in "X0[(" else "other"


def space_faults(text):
    """[(start, end, why)] of spaces the rule removes, in a Markdown message."""
    toks = tokens(text)
    faults = []
    for i, (s, e, shown) in enumerate(toks):
        if shown != " " or i == 0 or toks[i - 1][2] == "\n":
            continue                                  # not an indent
        before = next((t[2] for t in reversed(toks[:i]) if t[2] is not None), "")
        after = next((t[2] for t in toks[i + 1:] if t[2] is not None), "")
        if before in (" ", "\n") or after in (" ", "\n") or not after:
            continue
        a, b = _kind(before[-1]), _kind(after[0])
        if a == "cjk" and b == "cjk":
            faults.append((s, e, "space between Chinese characters"))
        elif a == "punct" and b in ("cjk", "latin", "punct", "other") and after[0] != "|":
            faults.append((s, e, f"space after {before[-1]}"))
        elif b == "punct" and a in ("cjk", "latin", "other") and before[-1] != "|":
            faults.append((s, e, f"space before {after[0]}"))
    return faults


def missing_spaces(text):
    """[(position, why)] where Chinese meets Latin letters, digits, code or math with no
    space between (a glued value is left alone: its text is not known here)."""
    toks = [t for t in tokens(text) if t[2] is not None]
    out = []
    for (s1, e1, a), (s2, e2, b) in zip(toks, toks[1:]):
        if a in (" ", "\n") or b in (" ", "\n") or "0" in (a, b):   # "0": a glued value
            continue
        ka, kb = _kind(a[-1]), _kind(b[0])
        if {ka, kb} == {"cjk", "latin"} and not (ka == "latin" and a == "[") and b != "[":
            out.append((e1, f"no space between {a[-1]!r} and {b[0]!r}"))
    return out


def fix_spaces(text):
    for s, e, _ in reversed(space_faults(text)):
        text = text[:s] + text[e:]
    return text


# ------------------------------------------------------------- emphasis
PUNCT = lambda c: c == "" or unicodedata.category(c)[0] in "PS"  # noqa: E731
SPACE = lambda c: c == "" or c.isspace()  # noqa: E731


def _masked(text):
    """The text with code spans and inline math filled (same length): their * are not emphasis."""
    t = re.sub(r"`[^`\n]*`", lambda m: "`" + "x" * (len(m.group()) - 2) + "`", text)
    return re.sub(r"\$[^$\n]*\$", lambda m: "$" + "x" * (len(m.group()) - 2) + "$", t)


def emphasis_faults(text):
    """[(start, end, "open"|"close", ok)] of the emphasis runs of a Markdown message:
    ok is False where CommonMark shows the run literally (an opening run that is not
    left-flanking, a closing one that is not right-flanking)."""
    t = _masked(text)
    out = []
    for para in re.finditer(r"(?:(?!\n[ \t]*\n).)+", t, flags=re.S):
        p0 = para.start()
        runs = [m for m in re.finditer(r"\*+", para.group())
                if not (m.group() == "*" and (m.start() == 0 or para.group()[m.start() - 1] == "\n")
                        and para.group()[m.end():m.end() + 1] == " ")]
        by_len = {}
        for m in runs:
            by_len.setdefault(len(m.group()), []).append(m)
        for ms in by_len.values():
            for k, m in enumerate(ms):
                s, e = p0 + m.start(), p0 + m.end()
                before = t[s - 1] if s else ""
                after = t[e] if e < len(t) else ""
                left = not SPACE(after) and (not PUNCT(after) or SPACE(before) or PUNCT(before))
                right = not SPACE(before) and (not PUNCT(before) or SPACE(after) or PUNCT(after))
                out.append((s, e, "open" if k % 2 == 0 else "close", left if k % 2 == 0 else right))
    return out


def bad_emphasis(text):
    """Runs of * that CommonMark shows literally (with a little context)."""
    return [text[max(0, s - 12):e + 12] for s, e, _, ok in emphasis_faults(text) if not ok]


EMPTY = "<!---->"


def cjk_emphasis(text):
    """Emphasis next to Chinese made to parse without a space: an empty HTML comment
    (punctuation to CommonMark, nothing on the page) before an opening run or after a
    closing run that a letter would otherwise keep from flanking."""
    for s, e, role, ok in sorted(emphasis_faults(text), reverse=True):
        if ok:
            continue
        if role == "open" and s and not text[s - 1].isspace() and not SPACE(text[e:e + 1]):
            text = text[:s] + EMPTY + text[s:]
        elif role == "close" and e < len(text) and not text[e].isspace() and not SPACE(text[s - 1:s]):
            text = text[:e] + EMPTY + text[e:]
    return text


# ------------------------------------------------------------- printed text
def display_width(text):
    """Columns a monospace screen gives the text (a Chinese character: two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


# ------------------------------------------------------------- sentences
def _math_shown(tex):
    t = re.sub(r"\\(?:text|mathrm|operatorname|mathbf)\{([^{}]*)\}", r"\1", tex)
    t = re.sub(r"\\[A-Za-z]+", "x", t)
    return re.sub(r"[{}^_\s\\]", "", t)


def visible_text(text):
    """What a reader reads of a Markdown message, roughly as long as on the page: no
    markup, a role as its title, math and code as their characters, a citation as [n]."""
    t = re.sub(r"```.*?```|^\s*:::.*$|^\s*\(\w[\w-]*\)=\s*$", "\n", text, flags=re.S | re.M)
    t = re.sub(r"\$\$(.*?)\$\$", lambda m: "\n" + _math_shown(m.group(1)) + "\n", t, flags=re.S)
    t = re.sub(r"\$([^$\n]+)\$", lambda m: _math_shown(m.group(1)), t)
    t = re.sub(r"\{glue(?::\w+)?\}`[^`]*`", "0.00", t)
    t = re.sub(r"\{cite(?::\w+)?\}`[^`]*`", "[1]", t)
    t = re.sub(r"\{[\w:-]+\}`([^`<]*?)\s*<[^`]*>`", r"\1", t)
    t = re.sub(r"\{[\w:-]+\}`([^`]*)`", r"\1", t)
    t = re.sub(r"`([^`\n]*)`", r"\1", t)
    t = re.sub(r"!?\[([^\]\n]*)\]\([^)\s]*\)", r"\1", t)
    t = re.sub(r"<!---->|</?[A-Za-z][^<>\n]*>|\*+", "", t)
    return t


def sentences(text):
    """The sentences of a Markdown message as a reader sees them: split after 。！？ and at
    each line (a heading, a list item, a table row)."""
    out = []
    for line in visible_text(text).split("\n"):
        line = re.sub(r"^\s*(?:#+|[-*+]|\d+\.|>)\s+", "", line).strip()
        if line.startswith("|"):
            continue
        out += [s.strip() for s in re.findall(r"[^。！？]*(?:[。！？]+[”’）]*|$)", line) if s.strip()]
    return out


HALF_WIDTH = re.compile(rf"[{CJK}][,:;?!](?![\w'\"=])|[,;:?!] ?[{CJK}]|(?<=\S), (?=[A-Za-z_\\][\w\\^{{}}]* = )")


def half_width_faults(text):
    """Half-width , : ; ? ! beside a Chinese character, or between the settings of a
    parameter list ("d_k = 8, n = 16"), in text a Chinese reader sees printed or drawn."""
    return [text[max(0, m.start() - 15):m.end() + 15] for m in HALF_WIDTH.finditer(text)]
