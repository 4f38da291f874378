/// Percentiles of a sample, in milliseconds.
struct Latencies {
    let sorted: [Double]
    init(_ values: [Double]) { sorted = values.sorted() }
    func percentile(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
    }
}

/// The middle value of a sample (`nan` when empty).
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
}
