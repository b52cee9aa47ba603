"""Write _build/_config.yml: _config.yml with the book's repository filled in.

Launch buttons (Colab, Binder) and the repository button need the GitHub
repository the book is published from. It is taken from BOOK_REPO_URL, else
from `git remote get-url origin`. With neither, the book is built without
those buttons (the download button stays) rather than with a made-up address.
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


def main():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
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
