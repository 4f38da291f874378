/// One thing `storybridge doctor` looked at, and what it found.
struct DoctorCheck: Sendable, Equatable {
    enum Outcome: Sendable, Equatable {
        /// Works; the detail says what was found (a version, a path, free space).
        case ok
        /// Not set up, so not checked (e.g. no upload collector configured).
        case skipped
        /// Missing or broken; `fix` is the exact command or step that repairs it.
        case failed(fix: String)
    }

    /// What was checked, e.g. "Chromium" or "data folder".
    var subject: String
    /// What was found, in words.
    var detail: String
    var outcome: Outcome
    /// Whether a failure makes `doctor` exit non-zero. Chromium is needed only by browser steps.
    var required: Bool

    var failedRequired: Bool {
        if case .failed = outcome { return required }
        return false
    }

    /// The check's lines in the report: a status word, the subject and detail, then the fix.
    var lines: [String] {
        let status: String
        switch outcome {
        case .ok: status = "ok   "
        case .skipped: status = "skip "
        case .failed: status = required ? "FAIL " : "warn "
        }
        var lines = ["  \(status) \(subject): \(detail)"]
        if case .failed(let fix) = outcome { lines.append("        fix: \(fix)") }
        return lines
    }
}
