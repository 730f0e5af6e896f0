"""A tiny model of the bge-m3 architecture, built locally in seconds (no download needed).

- tokenizer: a BPE model trained with `tokenizers` on a few hundred generated lines of
  English, Chinese and code, saved as XLMRobertaTokenizerFast with bge-m3's special tokens
  (<s>=0, <pad>=1, </s>=2, <unk>=3, <mask>=last id);
- an XLMRobertaModel with random weights from a fixed seed (hidden 32, 2 layers, 2 heads,
  intermediate 64, 514 positions, pad id 1), saved with save_pretrained;
- `colbert_linear.pt` (Linear(32, 32)) and `sparse_linear.pt` (Linear(32, 1)) beside it. The
  sparse head has a positive bias, so every real token of a text gets a positive lexical weight.

`BGEM3FlagModel(path, use_fp16=False, devices="cpu")` loads it in well under a second.
The weights are random: vectors mean nothing, but the real loading and encoding code runs.

`build_tiny_bge_m3(path)` builds it in a few seconds. Quest's tests wrap it in the session
fixtures `tiny_bge_m3` and `tiny_bge_dense` (tests/fakes/tiny_model.py); the benchmark uses it
when no real model is available; operators can point `--embedding-model` at the folder to try
indexing, search and the app end to end on a machine that cannot download bge-m3.
"""

from __future__ import annotations

import logging
import os
import random
from pathlib import Path

log = logging.getLogger(__name__)

# Tests never download weights: huggingface_hub reads this once, when it is first imported.
os.environ.setdefault("HF_HUB_OFFLINE", "1")

SEED = 20261130
HIDDEN = 32
VOCAB_SIZE = 1500
LAYER_INIT_STD = 0.2
SPECIAL_TOKENS = ["<s>", "<pad>", "</s>", "<unk>"]  # ids 0..3, as in bge-m3; <mask> goes last

_EN_SUBJECTS = [
    "The sliding window",
    "A monotonic queue",
    "Binary search",
    "Dynamic programming",
    "The prefix sum array",
    "A segment tree",
    "Depth first search",
    "Breadth first search",
    "Dijkstra's algorithm",
    "The union find structure",
    "A hash map",
    "Two pointers",
    "Quick sort",
    "The greedy choice",
    "Recursion without memoization",
]
_EN_PREDICATES = [
    "runs in linear time",
    "needs O(n log n) time",
    "causes Time Limit Exceeded on large inputs",
    "gives Wrong Answer when the array is empty",
    "overflows a 32-bit integer",
    "uses too much memory",
    "must handle duplicate values",
    "keeps indices instead of values",
    "pops expired elements from the front",
    "is accepted after fixing the off-by-one error",
    "reads input faster with sys.stdin",
    "fails on the first test case",
]
_ZH_SUBJECTS = [
    "滑动窗口",
    "单调队列",
    "二分查找",
    "动态规划",
    "前缀和",
    "线段树",
    "深度优先搜索",
    "广度优先搜索",
    "最短路",
    "并查集",
    "哈希表",
    "双指针",
    "快速排序",
    "贪心算法",
    "递归",
]
_ZH_PREDICATES = [
    "的时间复杂度是线性的",
    "在大数据下会超时",
    "提交后显示时间超限",
    "提交后显示答案错误",
    "数组为空时会出现运行错误",
    "整数溢出导致答案错误",
    "内存超限，需要优化空间",
    "需要处理重复元素",
    "队列里保存下标而不是数值",
    "修正边界条件后通过了",
    "用快速读入可以避免超时",
    "第一个测试点就没有通过",
]
_CODE_LINES = [
    "from collections import deque",
    "def max_sliding_window(nums, k):",
    "    q = deque()",
    "    for i, x in enumerate(nums):",
    "        while q and nums[q[-1]] <= x:",
    "            q.pop()",
    "        if q[0] <= i - k:",
    "            q.popleft()",
    "    return result",
    "n, k = map(int, input().split())",
    "import sys; input = sys.stdin.readline",
    "#include <bits/stdc++.h>",
    "using namespace std;",
    "int main() { ios::sync_with_stdio(false); cin.tie(nullptr); }",
    "vector<int> dp(n + 1, 0);",
    "long long sum = 0;",
    "for (int i = 0; i < n; ++i) ans = max(ans, a[i]);",
    "Traceback (most recent call last):",
    '  File "main.py", line 7, in <module>',
    "IndexError: list index out of range",
    "RecursionError: maximum recursion depth exceeded",
    "ZeroDivisionError: division by zero",
    "error: expected ';' before '}' token",
    "Segmentation fault (core dumped)",
    "public static void main(String[] args) {",
]


_QUESTIONS = [
    "为什么我的代码超时了？怎么办？",
    "请问这道题为什么答案错误，哪里有问题？",
    "我的程序在第三个测试点运行错误，是不是数组越界了？",
    "编译错误是什么意思？我该如何修改？",
    "内存超限了，有没有更好的方法？",
    "Why does my code get TLE? What should I do?",
    "Why is my answer wrong on test 3? Is it an edge case?",
    "My program crashes with a runtime error, how do I debug it?",
    "What does compile error mean here, and how do I fix it?",
]


def training_lines(seed: int = SEED, count: int = 480) -> list[str]:
    """Deterministic mixed English / Chinese / code lines for training the tokenizer."""
    rng = random.Random(seed)
    lines: list[str] = []
    lines.extend(_CODE_LINES)
    lines.extend(_QUESTIONS * 2)
    lines.extend(f"{s} {p}." for s in _EN_SUBJECTS for p in _EN_PREDICATES[:3])
    lines.extend(f"{s}{p}。" for s in _ZH_SUBJECTS for p in _ZH_PREDICATES[:3])
    while len(lines) < count:
        kind = rng.randrange(4)
        if kind == 0:
            lines.append(f"{rng.choice(_EN_SUBJECTS)} {rng.choice(_EN_PREDICATES)}.")
        elif kind == 1:
            lines.append(f"{rng.choice(_ZH_SUBJECTS)}{rng.choice(_ZH_PREDICATES)}。")
        elif kind == 2:
            lines.append(
                f"{rng.choice(_ZH_SUBJECTS)}（{rng.choice(_EN_SUBJECTS).lower()}）{rng.choice(_ZH_PREDICATES)}"
            )
        else:
            lines.append(rng.choice(_CODE_LINES) + f"  # case {rng.randrange(1000)}")
    return lines


def _build_tokenizer(folder: Path, lines: list[str]) -> int:
    """Train and save the tokenizer; returns the vocabulary size (including <mask>)."""
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import XLMRobertaTokenizerFast

    # BPE: its training is deterministic (the Unigram trainer's is not, from run to run).
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.normalizer = normalizers.Sequence([normalizers.NFKC(), normalizers.Replace(Regex(" {2,}"), " ")])
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    trainer = trainers.BpeTrainer(vocab_size=VOCAB_SIZE, special_tokens=SPECIAL_TOKENS, show_progress=False)
    tok.train_from_iterator(lines, trainer=trainer)
    tok.add_special_tokens(["<mask>"])
    bos, eos = tok.token_to_id("<s>"), tok.token_to_id("</s>")
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>",
        pair="<s> $A </s> </s> $B </s>",
        special_tokens=[("<s>", bos), ("</s>", eos)],
    )
    fast = XLMRobertaTokenizerFast(
        tokenizer_object=tok,
        bos_token="<s>",
        eos_token="</s>",
        sep_token="</s>",
        cls_token="<s>",
        unk_token="<unk>",
        pad_token="<pad>",
        mask_token="<mask>",
        model_max_length=512,
    )
    ids = [fast.convert_tokens_to_ids(t) for t in [*SPECIAL_TOKENS, "<mask>"]]
    assert ids[:4] == [0, 1, 2, 3] and ids[4] == len(fast) - 1, ids
    fast.save_pretrained(str(folder))
    return len(fast)


def build_tiny_bge_m3(path: Path, *, seed: int = SEED, heads: bool = True) -> Path:
    """Write a tiny bge-m3-architecture model into `path` (created); returns `path`.

    heads=False leaves out colbert_linear.pt / sparse_linear.pt (a plain dense encoder).
    The same seed always gives the same files' contents.
    """
    import torch
    from transformers import XLMRobertaConfig, XLMRobertaModel

    folder = Path(path)
    folder.mkdir(parents=True, exist_ok=True)
    vocab = _build_tokenizer(folder, training_lines(seed))

    config = XLMRobertaConfig(
        vocab_size=vocab,
        hidden_size=HIDDEN,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=514,
        type_vocab_size=1,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
        initializer_range=0.02,
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
    )
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = XLMRobertaModel(config)
        with torch.no_grad():
            # With the default init (std 0.02) every text gets the same [CLS] vector (cosine 1.0):
            # larger word embeddings and std-0.2 layers give similar texts ~0.95, unrelated ~0.4-0.7.
            model.embeddings.word_embeddings.weight.normal_(0.0, 1.0)
            model.embeddings.word_embeddings.weight[config.pad_token_id].zero_()
            for name, weight in model.named_parameters():
                if weight.dim() == 2 and ".embeddings." not in f".{name}":
                    weight.normal_(0.0, LAYER_INIT_STD)
        model.eval()
        model.save_pretrained(str(folder), safe_serialization=True)
        if heads:
            colbert = torch.nn.Linear(HIDDEN, HIDDEN)
            sparse = torch.nn.Linear(HIDDEN, 1)
            with torch.no_grad():
                # relu(w·h + b) > 0 for every token: |w·h| <= max|w| * ||h||_1 (about 0.25) < b = 1.
                sparse.weight.uniform_(-0.05 / HIDDEN**0.5, 0.05 / HIDDEN**0.5)
                sparse.bias.fill_(1.0)
            torch.save(colbert.state_dict(), folder / "colbert_linear.pt")
            torch.save(sparse.state_dict(), folder / "sparse_linear.pt")
    log.info("built tiny bge-m3 model in %s (vocab %d, heads %s)", folder, vocab, heads)
    return folder
