"""Benchmarks: throughput, tournaments, the luck-versus-skill study."""
