import CoreMetrics
import Synchronization

/// A request-duration histogram that records without a lock: one atomic add to the bucket the
/// duration falls in, one to the sum. It backs `storybridge_request_duration_seconds` (a
/// swift-metrics `Timer` per command), which every request records into from every core, where a
/// locked histogram made the cores queue for one another. ``HostMetrics`` renders it.
final class LatencyHistogram: TimerHandler, Sendable {
    /// One counter on a cache line of its own.
    private final class Cell: Sendable {
        let value = Atomic<Int>(0)
    }

    /// Bucket upper bounds in nanoseconds, ascending; a last bucket holds the rest (`+Inf`).
    let bounds: [Int64]
    private let cells: [Cell]
    private let sumNanoseconds = Cell()

    init(bounds: [Duration]) {
        self.bounds = bounds.map { $0.components.seconds * 1_000_000_000 + $0.components.attoseconds / 1_000_000_000 }.sorted()
        cells = (0...bounds.count).map { _ in Cell() }
    }

    func recordNanoseconds(_ duration: Int64) {
        var index = 0
        while index < bounds.count, duration > bounds[index] { index += 1 }
        cells[index].value.wrappingAdd(1, ordering: .relaxed)
        sumNanoseconds.value.wrappingAdd(Int(duration), ordering: .relaxed)
    }

    /// Appends the histogram in Prometheus text format: cumulative `_bucket` lines, `_sum` (seconds)
    /// and `_count`, each with `labels` (already rendered, e.g. `command="go"`).
    func emit(name: String, labels: String, into text: inout String) {
        var cumulative = 0
        for (index, cell) in cells.enumerated() {
            cumulative += cell.value.load(ordering: .relaxed)
            let bound = index < bounds.count ? String(Double(bounds[index]) / 1e9) : "+Inf"
            text += "\(name)_bucket{\(labels),le=\"\(bound)\"} \(cumulative)\n"
        }
        text += "\(name)_sum{\(labels)} \(Double(sumNanoseconds.value.load(ordering: .relaxed)) / 1e9)\n"
        text += "\(name)_count{\(labels)} \(cumulative)\n"
    }

    /// A Prometheus label value: backslash, double quote and line feed escaped.
    static func escapeLabel(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
