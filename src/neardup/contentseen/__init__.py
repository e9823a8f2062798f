"""ContentSeen: from a fetched page to a verdict (new, exact, content, near, layout, partial).

>>> from neardup.contentseen import ContentSeen
>>> with ContentSeen("memory://") as cs:
...     cs.check("https://a.example/", text="只有一句话的短文。").kind
'new'
"""

from __future__ import annotations

from neardup.contentseen.contentseen import ContentSeen, PageAnalysis
from neardup.contentseen.extract import extract_main_text, layout_signature
from neardup.contentseen.verdict import KINDS, Verdict

__all__ = ["KINDS", "ContentSeen", "PageAnalysis", "Verdict", "extract_main_text", "layout_signature"]
