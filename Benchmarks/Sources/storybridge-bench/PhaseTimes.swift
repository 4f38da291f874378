import Foundation

/// The phases a `storybridge` child printed with `STORYBRIDGE_TIMING` (``PhaseTiming``): one
/// line each, `timing:  <ms> ms  <phase>  (ends at <ms> ms)`, ends counted from the top of `main`.
struct PhaseTimes: Sendable {
    struct Phase: Sendable {
        var name: String
        var milliseconds: Double
        /// When it ended, from the top of `main` (0 for `process start to main`).
        var end: Double
        var start: Double { end - milliseconds }
    }

    /// In the order they ended; a phase measured twice (two packages) is summed.
    var phases: [Phase] = []

    /// The phase that is a delta update's own time: from the decision to fetch (the package link
    /// known) to the swap and the removal of its work files.
    static let deltaUpdatePhase = "delta update (decision to fetch to swap)"

    /// The delta update's own time, when the run printed it.
    var deltaUpdate: Double? { phases.first { $0.name == Self.deltaUpdatePhase }?.milliseconds }

    /// The phase after an install's swap that links the ready tree for the next delta update
    /// (docs/SYNC.md, "Ready tree"): off the update's critical path, in the whole process's time.
    static let readyTreePhase = "ready tree for the next update linked (after the swap)"

    /// The ready tree's build after the swap, when the run printed it.
    var readyTreeBuild: Double? { phases.first { $0.name == Self.readyTreePhase }?.milliseconds }

    /// Reads the timing lines of `output`; adds `process exit` (from the last phase's end to the
    /// process's end, measured by the spawner: `wholeSeconds`).
    init(output: String, wholeSeconds: Double) {
        for line in output.split(separator: "\n") where line.hasPrefix("timing:") {
            guard let match = line.firstMatch(of: /^timing: +([0-9.]+) ms  (.+)  \(ends at ([0-9.]+) ms\)$/),
                let milliseconds = Double(match.1), let end = Double(match.3)
            else { continue }
            let name = String(match.2)
            if let index = phases.firstIndex(where: { $0.name == name }) {
                phases[index].milliseconds += milliseconds
                phases[index].end = max(phases[index].end, end)
            } else {
                phases.append(Phase(name: name, milliseconds: milliseconds, end: end))
            }
        }
        let toMain = phases.first { $0.name == "process start to main" }?.milliseconds ?? 0
        let lastEnd = phases.map(\.end).max() ?? 0
        phases.append(
            Phase(name: "process exit (after the last phase)", milliseconds: wholeSeconds * 1000 - toMain - lastEnd, end: lastEnd))
    }

    /// One line per phase of the first run, in the order they started, indented by how many
    /// phases hold them, with the median of each over `runs`.
    static func medians(_ runs: [PhaseTimes]) -> [String] {
        guard let first = runs.first else { return [] }
        let exitPhase = "process exit (after the last phase)"
        let ordered =
            first.phases.filter { $0.name != exitPhase }.sorted { $0.start < $1.start } + first.phases.filter { $0.name == exitPhase }
        return ordered.map { phase in
            let depth = first.phases.filter { other in
                other.name != phase.name && other.name != exitPhase && other.start <= phase.start + 0.001
                    && other.end >= phase.end - 0.001 && other.milliseconds > phase.milliseconds
            }.count
            let values = runs.compactMap { run in run.phases.first { $0.name == phase.name }?.milliseconds }.sorted()
            let median = values.isEmpty ? Double.nan : values[values.count / 2]
            return String(format: "%9.2f  ", median) + String(repeating: "  ", count: depth) + phase.name
        }
    }
}
