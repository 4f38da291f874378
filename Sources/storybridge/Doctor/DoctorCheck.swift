import StoryBridge

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
    /// A value a program reading `doctor --json` wants as it is, not in words (the host id's 26
    /// characters), under this name of the report's top level.
    var value: NamedValue? = nil

    /// A member of the top level of `doctor --json`.
    struct NamedValue: Sendable, Equatable {
        var name: String
        var value: String
    }

    var failedRequired: Bool {
        if case .failed = outcome { return required }
        return false
    }

    /// The check in `doctor --json`: `{subject, status (ok, skipped, failed, warning), detail,
    /// required, fix}` (`fix` only when it failed).
    var json: JSONValue {
        var members: [String: JSONValue] = ["subject": .string(subject), "detail": .string(detail), "required": .bool(required)]
        switch outcome {
        case .ok: members["status"] = "ok"
        case .skipped: members["status"] = "skipped"
        case .failed(let fix):
            members["status"] = required ? "failed" : "warning"
            members["fix"] = .string(fix)
        }
        return .object(members)
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
