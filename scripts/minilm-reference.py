"""The f32 vectors of all-MiniLM-L6-v2 that crates/embed's int8 network is
checked against (crates/embed/tests/data/minilm-f32-reference.json).

Reads the model folder scripts/model.sh prints (model.safetensors,
tokenizer.json, config.json, each sha256-checked there), tokenizes each case
with Hugging Face's `tokenizers` (the package that wrote tokenizer.json), runs
the BERT encoder in float32 numpy (its config: post-LayerNorm, exact GELU,
mean pooling over the tokens, unit length: the sentence-transformers model's
modules) and compares the vectors with the file's, or rewrites them.

    python minilm-reference.py MODEL_DIR REFERENCE_JSON [--write]
"""

import json
import struct
import sys

import numpy as np
from tokenizers import Tokenizer


def tensors(path):
    """The safetensors file's tensors, by name."""
    with open(path, "rb") as f:
        n = struct.unpack("<Q", f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    kinds = {"F32": np.float32, "I64": np.int64}
    out = {}
    for name, t in header.items():
        if name == "__metadata__":
            continue
        start, end = t["data_offsets"]
        out[name] = np.frombuffer(data[start:end], dtype=kinds[t["dtype"]]).reshape(t["shape"])
    return out


def layer_norm(x, w, b, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * w + b


def gelu(x):
    # Exact GELU (hidden_act "gelu"). numpy has no erf: math.erf per
    # element (a few thousand a token).
    from math import erf

    return (0.5 * x * (1.0 + np.vectorize(erf)(x / np.sqrt(2.0)))).astype(np.float32)


def linear(x, t, name):
    return x @ t[name + ".weight"].T + t[name + ".bias"]


def vector(t, config, ids):
    eps = config["layer_norm_eps"]
    heads = config["num_attention_heads"]
    n = len(ids)
    x = (
        t["embeddings.word_embeddings.weight"][ids]
        + t["embeddings.position_embeddings.weight"][:n]
        + t["embeddings.token_type_embeddings.weight"][0]
    )
    x = layer_norm(x, t["embeddings.LayerNorm.weight"], t["embeddings.LayerNorm.bias"], eps)
    d = x.shape[1] // heads
    for i in range(config["num_hidden_layers"]):
        p = f"encoder.layer.{i}."

        def split(y):
            return y.reshape(n, heads, d).transpose(1, 0, 2)

        q = split(linear(x, t, p + "attention.self.query"))
        k = split(linear(x, t, p + "attention.self.key"))
        v = split(linear(x, t, p + "attention.self.value"))
        scores = q @ k.transpose(0, 2, 1) / np.float32(np.sqrt(d))
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        ctx = (scores @ v).transpose(1, 0, 2).reshape(n, heads * d)
        x = layer_norm(
            linear(ctx, t, p + "attention.output.dense") + x,
            t[p + "attention.output.LayerNorm.weight"],
            t[p + "attention.output.LayerNorm.bias"],
            eps,
        )
        h = gelu(linear(x, t, p + "intermediate.dense"))
        x = layer_norm(
            linear(h, t, p + "output.dense") + x,
            t[p + "output.LayerNorm.weight"],
            t[p + "output.LayerNorm.bias"],
            eps,
        )
    pooled = x.mean(0)
    return pooled / max(np.linalg.norm(pooled), 1e-12)


def main():
    model, reference = sys.argv[1], sys.argv[2]
    write = "--write" in sys.argv[3:]
    t = tensors(f"{model}/model.safetensors")
    with open(f"{model}/config.json") as f:
        config = json.load(f)
    tok = Tokenizer.from_file(f"{model}/tokenizer.json")
    tok.no_padding()
    with open(reference) as f:
        cases = json.load(f)
    worst = 1.0
    for c in cases:
        tok.enable_truncation(max_length=c["max_tokens"])
        ids = tok.encode(c["text"]).ids
        v = [round(float(x), 5) for x in vector(t, config, np.array(ids))]
        cos = float(np.dot(v, c["vector"]) / np.linalg.norm(v) / np.linalg.norm(c["vector"]))
        worst = min(worst, cos)
        c["vector"] = v
    print(f"{len(cases)} cases; worst cosine with the file's vectors: {worst:.6f}")
    if write:
        with open(reference, "w") as f:
            json.dump(cases, f, ensure_ascii=False, separators=(",", ":"))
        print(f"wrote {reference}")
    elif worst < 0.9999:
        sys.exit("the file's vectors are not those of the f32 network")


main()
