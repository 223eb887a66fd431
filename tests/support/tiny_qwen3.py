#!/usr/bin/python3
"""Tiny models with Qwen3's ONNX graph signature and vocabulary, for offline tests.

tiny-qwen3 (the default): writes <out>/tiny-qwen3/: config.json, generation_config.json, the real
Qwen3 tokenizer files, onnx/model.onnx (fp32) and onnx/model_q4.onnx (the same graph, weights
fake-quantised to INT4 in groups of 32, as the chapter built its draft), plus reference/ with a
numpy forward pass of both on fixed token ids.

pair: writes <out>/tiny-qwen3-target/ and <out>/tiny-qwen3-draft/, a target and a draft for
speculative decoding with the same vocabulary and tokenizer. The target's cost sits in weights
read once per call (12 layers with a 65,536-wide FFN, stored as INT8), so scoring several
positions in one pass costs little more than scoring one; the draft is the target pruned to its
first layer with 64 FFN units, so it shares the target's embedding, rotation and bias and stays
close to it.

Needs only Debian's python3-onnx and python3-numpy.

Usage: tiny_qwen3.py OUT_DIR TOKENIZER_DIR [tiny-qwen3|pair]
"""
import json
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

VOCAB = 151936
HIDDEN = 32
LAYERS = 2
HEADS = 2
HEAD_DIM = 16
FFN = 64
EPS = 1e-6
GROUP = 32
EOS = 151645
# The speculative pair.
TARGET_LAYERS = 12
TARGET_FFN = 65536
DRAFT_FFN = 64
# Scale of every target layer's output (attention and FFN), which the draft lacks in part: it sets
# how close the draft's distributions are to the target's, the acceptance rate.
TARGET_SCALE = 0.04


def weights(seed=2026, layers=LAYERS, ffn=FFN):
    rng = np.random.default_rng(seed)
    w = {"embed": rng.standard_normal((VOCAB, HIDDEN)).astype(np.float32)}
    for layer in range(layers):
        for name, shape in (("q", (HIDDEN, HEADS * HEAD_DIM)), ("k", (HIDDEN, HEADS * HEAD_DIM)),
                            ("v", (HIDDEN, HEADS * HEAD_DIM)), ("o", (HEADS * HEAD_DIM, HIDDEN)),
                            ("up", (HIDDEN, ffn)), ("down", (ffn, HIDDEN))):
            w[f"{name}{layer}"] = (rng.standard_normal(shape) / np.sqrt(shape[0])).astype(np.float32)
    # A fixed rotation before the tied output layer: without it the model repeats its input token.
    rotation, _ = np.linalg.qr(rng.standard_normal((HIDDEN, HIDDEN)))
    w["rotation"] = (0.8 * rotation).astype(np.float32)  # median entropy about 5 bits at T = 1
    # A Zipf-like bias over a random order of the vocabulary, as real next-token distributions have.
    rank = rng.permutation(VOCAB).astype(np.float64)
    w["bias"] = (-1.1 * np.log1p(rank)).astype(np.float32)
    w["frequencies"] = (1.0 / 10000 ** (np.arange(HIDDEN) / HIDDEN)).astype(np.float32)
    return w


def speculative_pair():
    """The target, its layers' outputs scaled by TARGET_SCALE and its FFN weights on an INT8 grid
    (stored as INT8, so the file is a quarter of the float32 one), and the draft: the target's
    first layer with only its first DRAFT_FFN FFN units, sharing everything outside the layers.
    Returns (target, draft, the target's INT8 weights: name → (values, scale))."""
    target = weights(seed=2027, layers=TARGET_LAYERS, ffn=TARGET_FFN)
    stored = {}
    for layer in range(TARGET_LAYERS):
        for name in ("o", "down"):
            target[f"{name}{layer}"] *= np.float32(TARGET_SCALE)
        for name in (f"up{layer}", f"down{layer}"):
            scale = np.float32(np.abs(target[name]).max() / 127)
            stored[name] = (np.round(target[name] / scale).astype(np.int8), scale)
            target[name] = stored[name][0].astype(np.float32) * scale
    draft = {name: target[name] for name in ("embed", "rotation", "bias", "frequencies", "q0", "k0", "v0", "o0")}
    draft["up0"] = target["up0"][:, :DRAFT_FFN].copy()
    draft["down0"] = target["down0"][:DRAFT_FFN].copy()
    return target, draft, stored


def layer_count(w):
    return sum(1 for name in w if name.startswith("q") and name[1:].isdigit())


def fake_int4(w):
    """Symmetric INT4 per group of 32 along the input dimension, stored back as float32."""
    out = {}
    for name, value in w.items():
        if name in ("bias", "frequencies"):
            out[name] = value
            continue
        rows = value.reshape(-1, GROUP) if name == "embed" else value.T.reshape(-1, GROUP)
        scale = np.abs(rows).max(axis=1, keepdims=True) / 7.0
        scale[scale == 0] = 1.0
        quantised = (np.clip(np.round(rows / scale), -8, 7) * scale).astype(np.float32)
        out[name] = quantised.reshape(value.shape) if name == "embed" else quantised.reshape(value.T.shape).T.copy()
    return out


def rms_norm(x):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + EPS)


def forward(w, ids):
    """The numpy reference: logits for every position of one sequence, float32 throughout."""
    positions = np.arange(len(ids), dtype=np.float32)
    x = w["embed"][ids] + 0.5 * np.sin(positions[:, None] * w["frequencies"][None, :])
    s = len(ids)
    causal = np.tril(np.ones((s, s), dtype=bool))
    for layer in range(layer_count(w)):
        h = rms_norm(x)
        q = (h @ w[f"q{layer}"]).reshape(s, HEADS, HEAD_DIM).transpose(1, 0, 2)
        k = (h @ w[f"k{layer}"]).reshape(s, HEADS, HEAD_DIM).transpose(1, 0, 2)
        v = (h @ w[f"v{layer}"]).reshape(s, HEADS, HEAD_DIM).transpose(1, 0, 2)
        scores = q @ k.transpose(0, 2, 1) / np.float32(np.sqrt(HEAD_DIM))
        scores = np.where(causal[None], scores, np.float32(-1e9))
        scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
        attention = (scores / scores.sum(axis=-1, keepdims=True)) @ v
        x = x + attention.transpose(1, 0, 2).reshape(s, HEADS * HEAD_DIM) @ w[f"o{layer}"]
        x = x + np.maximum(rms_norm(x) @ w[f"up{layer}"], 0) @ w[f"down{layer}"]
    return (rms_norm(x) @ w["rotation"]) @ w["embed"].T + w["bias"]


def graph(w, stored_int8=None):
    """The ONNX graph of weights `w`; those in `stored_int8` (name → (INT8 values, scale)) are
    stored as INT8 and made float32 by a Cast and a Mul, which onnxruntime folds at load."""
    nodes, inits = [], []

    def const(name, value):
        inits.append(numpy_helper.from_array(np.asarray(value), name))
        return name

    def node(op, inputs, output, **attrs):
        nodes.append(helper.make_node(op, inputs, [output], name=output, **attrs))
        return output

    for name, value in w.items():
        if name in (stored_int8 or {}):
            values, scale = stored_int8[name]
            node("Mul", [node("Cast", [const(f"{name}_int8", values)], f"{name}_float", to=TensorProto.FLOAT),
                         const(f"{name}_scale", scale)], name)
        else:
            const(name, value)
    const("axis_last", np.array([-1], dtype=np.int64))
    const("first_axis", np.array([0], dtype=np.int64))
    const("one_axis", np.array([1], dtype=np.int64))
    const("middle_axes", np.array([1, 2], dtype=np.int64))
    const("zero", np.array(0, dtype=np.int64))
    const("one", np.array(1, dtype=np.int64))
    const("half", np.array(0.5, dtype=np.float32))
    const("eps", np.array(EPS, dtype=np.float32))
    const("masked", np.array(-1e9, dtype=np.float32))
    const("inv_sqrt_d", np.array(1 / np.sqrt(HEAD_DIM), dtype=np.float32))
    const("split_heads", np.array([0, 0, HEADS, HEAD_DIM], dtype=np.int64))
    const("merge_heads", np.array([0, 0, HEADS * HEAD_DIM], dtype=np.int64))

    def rms(x, tag):
        square = node("Mul", [x, x], f"{tag}_sq")
        mean = node("ReduceMean", [square], f"{tag}_mean", axes=[-1], keepdims=1)
        root = node("Sqrt", [node("Add", [mean, "eps"], f"{tag}_eps")], f"{tag}_root")
        return node("Div", [x, root], f"{tag}_out")

    embedded = node("Gather", ["embed", "input_ids"], "embedded")
    angle = node("Mul", [node("Unsqueeze", [node("Cast", ["position_ids"], "pos_f", to=TensorProto.FLOAT), "axis_last"], "pos_u"),
                         "frequencies"], "angle")
    x = node("Add", [embedded, node("Mul", [node("Sin", [angle], "sin"), "half"], "pos_feature")], "x_in")

    # Causal mask over past + current keys: key j is visible from query i when j <= past + i.
    seq = node("Gather", [node("Shape", ["input_ids"], "ids_shape"), "one"], "seq")
    total = node("Gather", [node("Shape", ["attention_mask"], "mask_shape"), "one"], "total")
    past = node("Sub", [total, seq], "past")
    query = node("Unsqueeze", [node("Range", ["zero", seq, "one"], "query_pos"), "axis_last"], "query_col")
    key = node("Range", ["zero", total, "one"], "key_pos")
    visible = node("LessOrEqual", [node("Sub", [key, query], "key_minus_query"), past], "causal")
    padding = node("Cast", [node("Unsqueeze", ["attention_mask", "middle_axes"], "mask_u")],
                   "mask_bool", to=TensorProto.BOOL)
    allowed = node("And", [visible, padding], "allowed")

    for layer in range(layer_count(w)):
        h = rms(x, f"attn_norm{layer}")
        heads = {}
        for part in ("q", "k", "v"):
            projected = node("MatMul", [h, f"{part}{layer}"], f"{part}_proj{layer}")
            heads[part] = node("Transpose", [node("Reshape", [projected, "split_heads"], f"{part}_split{layer}")],
                               f"{part}_heads{layer}", perm=[0, 2, 1, 3])
        keys = node("Concat", [f"past_key_values.{layer}.key", heads["k"]], f"present.{layer}.key", axis=2)
        values = node("Concat", [f"past_key_values.{layer}.value", heads["v"]], f"present.{layer}.value", axis=2)
        scores = node("Mul", [node("MatMul", [heads["q"], node("Transpose", [keys], f"keys_t{layer}", perm=[0, 1, 3, 2])],
                                   f"qk{layer}"), "inv_sqrt_d"], f"scores{layer}")
        probs = node("Softmax", [node("Where", [allowed, scores, "masked"], f"masked_scores{layer}")], f"attn{layer}", axis=-1)
        mixed = node("Transpose", [node("MatMul", [probs, values], f"mixed{layer}")], f"mixed_t{layer}", perm=[0, 2, 1, 3])
        merged = node("Reshape", [mixed, "merge_heads"], f"merged{layer}")
        x = node("Add", [x, node("MatMul", [merged, f"o{layer}"], f"attn_out{layer}")], f"x_attn{layer}")
        up = node("Relu", [node("MatMul", [rms(x, f"ffn_norm{layer}"), f"up{layer}"], f"up_proj{layer}")], f"up_relu{layer}")
        x = node("Add", [x, node("MatMul", [up, f"down{layer}"], f"down_proj{layer}")], f"x_ffn{layer}")

    # Only the last num_logits_to_keep rows reach the output layer (0 = all of them).
    keep = node("Where", [node("Equal", ["num_logits_to_keep", "zero"], "keep_all"), seq, "num_logits_to_keep"], "keep")
    start = node("Unsqueeze", [node("Sub", [seq, keep], "first_row"), "first_axis"], "starts")
    end = node("Unsqueeze", [seq, "first_axis"], "ends")
    kept = node("Slice", [x, start, end, "one_axis"], "kept_rows")
    head_in = node("MatMul", [rms(kept, "final_norm"), "rotation"], "rotated")
    embed_t = node("Transpose", ["embed"], "embed_t", perm=[1, 0])
    node("Add", [node("MatMul", [head_in, embed_t], "lm_head"), "bias"], "logits")

    float_cache = lambda name, length: helper.make_tensor_value_info(name, TensorProto.FLOAT, ["batch_size", HEADS, length, HEAD_DIM])
    inputs = [
        helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch_size", "sequence_length"]),
        helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch_size", "total_sequence_length"]),
        helper.make_tensor_value_info("position_ids", TensorProto.INT64, ["batch_size", "sequence_length"]),
    ]
    outputs = [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["batch_size", "logits_rows", VOCAB])]
    for layer in range(layer_count(w)):
        for part in ("key", "value"):
            inputs.append(float_cache(f"past_key_values.{layer}.{part}", "past_sequence_length"))
            outputs.append(float_cache(f"present.{layer}.{part}", "total_sequence_length"))
    inputs.append(helper.make_tensor_value_info("num_logits_to_keep", TensorProto.INT64, []))
    model = helper.make_model(helper.make_graph(nodes, "tiny_qwen3", inputs, outputs, inits),
                              opset_imports=[helper.make_opsetid("", 17)], producer_name="sampling-lab tests")
    model.ir_version = 8
    onnx.checker.check_model(model)
    return model


def replace(path, write):
    """Writes a file beside `path` with write(file) and moves it into place in one step, so that a
    test reading the model while another rebuilds it sees the old file or the new one."""
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "wb") as f:
        write(f)
    os.replace(temporary, path)


def write_json(path, value):
    replace(path, lambda f: f.write(json.dumps(value, indent=2).encode()))


def write_folder(root, tokenizer_dir, w, models):
    """config.json, generation_config.json, the tokenizer and onnx/model<suffix>.onnx for each
    (suffix, graph) of `models`, all with the architecture of `w`."""
    os.makedirs(os.path.join(root, "onnx"), exist_ok=True)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        with open(os.path.join(tokenizer_dir, name), "rb") as source:
            replace(os.path.join(root, name), lambda f: shutil.copyfileobj(source, f))
    write_json(os.path.join(root, "config.json"), {
        "architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "vocab_size": VOCAB, "hidden_size": HIDDEN,
        "intermediate_size": w["up0"].shape[1], "num_hidden_layers": layer_count(w), "num_attention_heads": HEADS,
        "num_key_value_heads": HEADS, "head_dim": HEAD_DIM, "max_position_embeddings": 40960,
        "rms_norm_eps": EPS, "tie_word_embeddings": True, "bos_token_id": 151643, "eos_token_id": EOS,
        "torch_dtype": "float32", "use_cache": True,
    })
    # Qwen3's own generation defaults, which generate() picks up unless told otherwise.
    write_json(os.path.join(root, "generation_config.json"), {
        "bos_token_id": 151643, "eos_token_id": [EOS, 151643], "do_sample": True, "temperature": 0.6, "top_k": 20, "top_p": 0.95,
    })
    for suffix, model in models:
        replace(os.path.join(root, "onnx", f"model{suffix}.onnx"), lambda f: f.write(model.SerializeToString()))


def main(out_dir, tokenizer_dir, which="tiny-qwen3"):
    if which == "pair":
        target, draft, stored = speculative_pair()
        write_folder(os.path.join(out_dir, "tiny-qwen3-target"), tokenizer_dir, target, [("", graph(target, stored))])
        write_folder(os.path.join(out_dir, "tiny-qwen3-draft"), tokenizer_dir, draft, [("", graph(draft))])
        return
    if which != "tiny-qwen3":
        sys.exit(__doc__)
    root = os.path.join(out_dir, "tiny-qwen3")
    full = weights()
    draft = fake_int4(full)
    write_folder(root, tokenizer_dir, full, [("", graph(full)), ("_q4", graph(draft))])
    os.makedirs(os.path.join(root, "reference"), exist_ok=True)
    ids = np.random.default_rng(7).integers(0, 151643, size=24)
    replace(os.path.join(root, "reference", "ids.json"), lambda f: f.write(json.dumps([int(i) for i in ids]).encode()))
    for name, w in (("fp32", full), ("q4", draft)):
        logits = np.ascontiguousarray(forward(w, ids), dtype=np.float32)
        replace(os.path.join(root, "reference", f"{name}-logits.npy"), lambda f: np.save(f, logits))


if __name__ == "__main__":
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    main(*sys.argv[1:])
