"""Running many games at once: the process pool and the Ray cluster, for training and the benchmarks."""
