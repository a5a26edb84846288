package eviction
