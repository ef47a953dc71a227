/// The median the benchmarks report: the middle of the sorted values, the upper one of the two
/// middles for an even count (so it is always a value that was measured).
func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
