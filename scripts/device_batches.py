"""scripts/device_batches.py — the batch each model profile is measured at
when measure_device.py is given no --batch: ccsim's default model.batch (32),
except GPT-2 small, whose 32 x 1024-token batch does not fit an 80 GB GPU in
fp32.  merge_device.py keeps the run at this batch whole (its per-tensor
ready times).  No torch here, so that the merge runs without it."""
DEFAULT_BATCH = {"resnet50": 32, "vgg16": 32, "bert-base": 32, "gpt2-small": 8, "lstm": 32,
                 "resnet101": 32, "resnet50-cifar": 32, "lstm-wt2": 32}
