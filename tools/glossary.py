"""Link every glossary term from its first use in the book.

    python tools/glossary.py          # report each term's first use
    python tools/glossary.py link     # wrap first uses in {term}`...` roles

The book is read in the order of _toc.yml; a term's first use is its first
appearance in prose (not in a heading, code, maths, a link or another role).
tests/test_course.py checks that every first use is a link.
"""
import re
import sys
from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parents[1]
# spelled differently in running text than in the glossary's headword
EXTRA = {"recurrent neural network (RNN)": ["recurrent neural network", "RNN"],
         "vanishing / exploding gradient": ["vanishing gradient", "exploding gradient",
                                            "vanishing gradients", "exploding gradients"],
         "Adam optimiser": ["Adam"],
         "squeeze-and-excitation block": ["squeeze-and-excitation"],
         "encoder / decoder": ["encoder", "decoder"],
         "overflow / underflow": ["overflow", "underflow"],
         "softmax saturation": ["saturation", "saturates", "saturated"],
         "held-out set": ["held-out"],
         "uneven focus": ["uneven focus"]}
# text that is not prose: roles, code, maths, links, HTML, bare addresses
PROTECTED = re.compile(r"\{[\w:-]+\}`[^`]*`|`[^`]*`|\$\$.*?\$\$|\$[^$]*\$|!?\[[^\]]*\]\([^)]*\)"
                       r"|<[^>]+>|https?://\S+")


def terms():
    """{target: [spellings]}: each glossary entry's full term and how prose spells it."""
    text = (ROOT / "book" / "glossary.md").read_text()
    body = text.split("```{glossary}", 1)[1].split("```", 1)[0]
    out = {}
    for line in body.splitlines():
        if not line.strip() or line.startswith(" "):
            continue
        target = line.replace("$", "").strip()
        english = line.split(" · ")[0].strip()
        out[target] = EXTRA.get(english, [s.strip() for s in english.split(" / ")])
    return out


def pattern(spellings):
    """A regex for any spelling, as a whole word, in the singular or plural."""
    forms = []
    for s in sorted(spellings, key=len, reverse=True):
        word = re.escape(s)
        if s.endswith("y") and not s.endswith("ey"):
            word = re.escape(s[:-1]) + "(?:y|ies)"
        elif s[-1].isalpha() and s[-1].islower():
            word += "(?:es|s)?"
        forms.append(word)
    flags = 0 if all(s.isupper() or s[0].isupper() for s in spellings) else re.IGNORECASE
    return re.compile(r"(?<![\w-])(?:" + "|".join(forms) + r")(?![\w-])", flags)


def units():
    """The book's prose in reading order: (path, notebook or None, cell or None, text)."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]] + [c["file"] for part in toc["parts"] for c in part["chapters"]]
    for name in files:
        if name in ("book/glossary", "book/references"):
            continue
        md, ipynb = ROOT / f"{name}.md", ROOT / f"{name}.ipynb"
        if md.exists():
            yield md, None, None, md.read_text()
        else:
            nb = nbformat.read(ipynb, as_version=4)
            for cell in nb.cells:
                if cell.cell_type == "markdown":
                    yield ipynb, nb, cell, cell.source


def prose_spans(text):
    """(start, end) of the parts of text where a term may be linked."""
    spans, offset, fences, maths = [], 0, [], False   # open fences: "code" or "directive"
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if line.count("$$") % 2:          # a display-maths block opens or closes here
            maths = not maths
            offset += len(line)
            continue
        if maths:
            offset += len(line)
            continue
        if stripped.startswith(("```", "~~~")):
            if fences and stripped in ("```", "~~~", "````"):
                fences.pop()
            else:   # ```{exercise} holds prose; ```python holds code
                fences.append("directive" if stripped.lstrip("`~").startswith("{") else "code")
        elif "code" not in fences and not stripped.startswith(("#", ":")):
            pos = 0
            for m in PROTECTED.finditer(line):
                spans.append((offset + pos, offset + m.start()))
                pos = m.end()
            spans.append((offset + pos, offset + len(line)))
        offset += len(line)
    return spans


def first_match(rx, text):
    for start, end in prose_spans(text):
        m = rx.search(text, start, end)
        if m:
            return m
    return None


def first_uses():
    """{target: (path, text of the first use, already linked?)} for every term."""
    result = {}
    texts = list(units())
    for target, spellings in terms().items():
        rx = pattern(spellings)
        linked = re.compile(r"\{term\}`[^`<]*<" + re.escape(target) + r">`")
        for path, _, _, text in texts:
            m = first_match(rx, text)
            link = linked.search(text)
            if link and (m is None or link.start() < m.start()):
                result[target] = (path, link.group(0), True)
                break
            if m:
                result[target] = (path, m.group(0), False)
                break
    return result


def link():
    """Wrap each term's first use in a {term} role; write the files back."""
    texts = list(units())
    changed = {}
    for target, spellings in sorted(terms().items(), key=lambda t: -max(map(len, t[1]))):
        rx = pattern(spellings)
        linked = re.compile(r"\{term\}`[^`<]*<" + re.escape(target) + r">`")
        for k, (path, nb, cell, text) in enumerate(texts):
            if linked.search(text):
                break
            m = first_match(rx, text)
            if m:
                text = text[:m.start()] + f"{{term}}`{m.group(0)} <{target}>`" + text[m.end():]
                texts[k] = (path, nb, cell, text)
                changed[path] = nb
                break
    for path, nb, cell, text in texts:
        if path not in changed:
            continue
        if nb is None:
            path.write_text(text)
        else:
            cell.source = text
    for path, nb in changed.items():
        if nb is not None:
            nbformat.write(nb, path)
    print(f"linked terms in {len(changed)} files")


if __name__ == "__main__":
    if sys.argv[1:] == ["link"]:
        link()
    else:
        for target, (path, text, ok) in first_uses().items():
            print(f"{'ok ' if ok else 'NO '} {target:45} {path.relative_to(ROOT)}: {text}")
