"""What the benchmarks rely on (benchmarks/): the pydantic peer and the workload."""
