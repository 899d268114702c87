# workloads/papers/s2-reducer/methods.sh — the study's methods, sourced by
# run.sh and scripts/docnumbers.d/s2-reducer-*.sh: label | compressor |
# collective (the embedding's; the text task replaces cols 650 by 64).
# dense-ring: the uncompressed fp32 ring every framework uses without sparse
# support; agsparse: every worker's non-zeros (index + value; threshold at
# 1e-30 keeps all of them) all-gathered; parallax-ps: the same non-zeros
# pushed to sharded servers that answer with the non-zeros of the sum
# (Parallax sends sparse variables through a parameter server)
METHODS=(
  'dense-ring|"none"|"allreduce/ring"'
  's2-reducer|{"name": "s2-sketch", "cols": 650, "ratio": 0.05}|"allreduce/ring"'
  'sparcml|"none"|"allreduce/sparcml"'
  'omnireduce|"none"|"allreduce/omnireduce"'
  'topk-allgather|{"name": "topk", "ratio": 0.01, "memory": "residual"}|"allgather/ring"'
  'agsparse|{"name": "threshold", "tau": 1e-30}|"allgather/ring"'
  'parallax-ps|{"name": "threshold", "tau": 1e-30}|{"name": "ps", "downlink": true}'
)
