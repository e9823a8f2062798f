"""Text pipeline: normalization, sentences, tokenizers, stop words, weights.

>>> from neardup.text import normalize, tokenize_words
>>> tokenize_words(normalize("Ｓｉｍｈａｓｈ 分布式"))
['simhash', '分布式']
"""

from __future__ import annotations

from neardup.text.normalize import normalize, strip_tags
from neardup.text.segment import char_shingles, cut, shingle_text, tokenize_words, word_ngrams
from neardup.text.sentences import split_sentences
from neardup.text.stopwords import stopwords
from neardup.text.weights import IDFTable, auto_top_n, fit_idf, jieba_idf, load_idf, quantize

__all__ = [
    "IDFTable",
    "auto_top_n",
    "char_shingles",
    "cut",
    "fit_idf",
    "jieba_idf",
    "load_idf",
    "normalize",
    "quantize",
    "shingle_text",
    "split_sentences",
    "stopwords",
    "strip_tags",
    "tokenize_words",
    "word_ngrams",
]
