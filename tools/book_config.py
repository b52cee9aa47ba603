"""Write _build/_config.yml: _config.yml with the book's repository filled in.

Launch buttons (Colab, Binder) and the repository button need the GitHub
repository the book is published from. It is taken from BOOK_REPO_URL, else
from `git remote get-url origin`. With neither, the book is built without
those buttons (the download button stays) rather than with a made-up address.

Search: the book's search index uses Sphinx's Chinese splitter (jieba) with
every Chinese term of the glossary as a word of its own, so a search finds
自注意力 as well as self-attention.
"""
import os
import re
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def repo_url():
    url = os.environ.get("BOOK_REPO_URL", "").strip()
    if not url:
        try:
            url = subprocess.run(["git", "remote", "get-url", "origin"], cwd=ROOT,
                                 capture_output=True, text=True).stdout.strip()
        except OSError:
            url = ""
    m = re.match(r"(?:https://github\.com/|git@github\.com:)([\w.-]+/[\w.-]+?)(?:\.git)?/?$", url)
    return f"https://github.com/{m.group(1)}" if m else ""


def chinese_terms():
    """The Chinese side of every glossary headword, e.g. 自注意力, 多头注意力."""
    body = (ROOT / "book" / "glossary.md").read_text().split("```{glossary}", 1)[1].split("```", 1)[0]
    words = []
    for line in body.splitlines():
        if " · " in line and not line.startswith(" "):
            chinese = re.sub(r"\(.*?\)", "", line.split(" · ", 1)[1])
            words += [w.strip() for w in chinese.split("/") if w.strip() and " " not in w.strip()]
    return words


def main():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    words = ROOT / "_build" / "search-words.txt"
    words.parent.mkdir(exist_ok=True)
    words.write_text("".join(f"{w} 20000 n\n" for w in chinese_terms()))
    config["sphinx"]["config"]["html_search_options"] = {"dict": str(words)}
    url = repo_url()
    if url:
        config["repository"]["url"] = url
        config["html"]["use_repository_button"] = True
        config["html"]["use_issues_button"] = True
        print(f"book_config: launch buttons point at {url}")
    else:
        config.pop("repository", None)
        config["launch_buttons"] = {"colab_url": "", "binderhub_url": ""}
        print("book_config: no GitHub repository found (set BOOK_REPO_URL); "
              "building without Colab/Binder buttons")
    out = ROOT / "_build" / "_config.yml"
    out.parent.mkdir(exist_ok=True)
    out.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False))


if __name__ == "__main__":
    main()
