try:  # the book's own code: plot style, sliders, quizzes, glue
    import attention_book
except ImportError:  # on Colab: install it from the book's repository
    import subprocess, sys
    subprocess.run([sys.executable, "-m", "pip", "install", "-q",
                    "git+REPOSITORY"], check=True)
from attention_book.book import *  # np, plt and the book's helpers
