"""Synthetic documents with known duplicates for the dedup tests (no corpus text is committed)."""

from __future__ import annotations

import random
from typing import Any

WORDS = [
    "经济",
    "发展",
    "会议",
    "北京",
    "上海",
    "企业",
    "市场",
    "政策",
    "改革",
    "科技",
    "创新",
    "教育",
    "医疗",
    "环境",
    "交通",
    "农业",
    "工业",
    "投资",
    "消费",
    "增长",
    "国际",
    "合作",
    "文化",
    "旅游",
    "体育",
    "城市",
    "乡村",
    "人才",
    "安全",
    "能源",
    "数据",
    "网络",
    "服务",
    "建设",
    "项目",
    "规划",
    "社会",
    "民生",
    "就业",
    "收入",
]


def sentence(rng: random.Random, words: int = 14) -> str:
    return "".join(rng.choice(WORDS) for _ in range(words)) + "。"


def article(rng: random.Random, sentences: int = 8) -> str:
    return "".join(sentence(rng, rng.randint(10, 18)) for _ in range(sentences))


def near_copy(rng: random.Random, text: str) -> str:
    """Change one word in one sentence: a repost with a typo fixed."""
    parts = text.split("。")
    i = rng.randrange(len(parts) - 1)
    parts[i] = parts[i][:4] + rng.choice(WORDS) + parts[i][6:]
    return "。".join(parts)


def make_docs(n_base: int = 40, seed: int = 7) -> list[dict[str, str]]:
    """Base articles, each followed now and then by an exact copy or a near copy."""
    rng = random.Random(seed)
    docs: list[dict[str, str]] = []
    for b in range(n_base):
        text = article(rng)
        docs.append({"id": f"d{len(docs)}", "text": text})
        if b % 3 == 0:
            docs.append({"id": f"d{len(docs)}", "text": text})
        if b % 4 == 1:
            docs.append({"id": f"d{len(docs)}", "text": near_copy(rng, text)})
    rng.shuffle(docs)
    return docs


def run_main(args: list[str], capsys: Any) -> tuple[int, str, str]:
    """``neardup ARGS`` in this process: (exit code, stdout, stderr)."""
    import pytest

    from neardup.cli.main import main

    with pytest.raises(SystemExit) as exit_info:
        main(args)
    out, err = capsys.readouterr()
    return int(exit_info.value.code or 0), out, err
