import Foundation

/// What a sync run says about itself, the same words from `storybridge sync` (on the terminal)
/// and from `serve --sync-every` (in its log and the health endpoint).
package enum SyncRunSummary {
    /// The catalog's line: clients, new, changed, unchanged, withdrawn, removed, failed.
    package static func describe(_ report: MetadataSyncReport) -> String {
        var parts = ["\(report.clients) client\(report.clients == 1 ? "" : "s")"]
        parts.append("\(report.added.count) new")
        parts.append("\(report.updated.count) changed")
        parts.append("\(report.unchanged) unchanged")
        if !report.restored.isEmpty { parts.append("\(report.restored.count) offered again") }
        parts.append("\(report.withdrawn.count) withdrawn")
        parts.append("\(report.removed.count) removed")
        if !report.failed.isEmpty { parts.append("\(report.failed.count) failed") }
        if !report.skipped.isEmpty { parts.append("\(report.skipped.count) skipped") }
        return "catalog: " + parts.joined(separator: ", ")
    }

    /// What a metadata sync left undone, one line each (printed, and kept for --status).
    package static func notes(_ report: MetadataSyncReport) -> [String] {
        var lines = report.failed.map { "presentation \($0.id) failed: \($0.reason)" }
        if let heldBack = report.heldBack { lines.append(heldBack) }
        return lines
    }

    /// What a content sync did besides installing: skip marks, dependencies, missing packages, warnings.
    package static func remarks(_ report: ContentSyncReport) -> [String] {
        var lines = report.markedSkip.map { "presentation \($0) is marked skip on the service: not downloaded" }
        lines += report.pinned.map { "presentation \($0) is pinned to a rolled-back revision: not updated (storybridge unpin \($0))" }
        if !report.dependencies.isEmpty {
            lines.append(
                "also brought, opened by the presentations asked for: \(report.dependencies.map(String.init).joined(separator: ", "))")
        }
        if !report.missingDependencies.isEmpty {
            lines.append(
                "opened by the presentations asked for but not offered by the service: "
                    + report.missingDependencies.map(String.init).joined(separator: ", "))
        }
        lines += report.withoutPackage.map { "presentation \($0) has no package on the service: not downloaded (no package)" }
        lines += report.warnings.map { "presentation \($0.id) installed with a warning: \($0.warning)" }
        lines += report.manifestsRefreshed.map { "presentation \($0): re-signed manifest stored (no download)" }
        lines += report.manifestWarnings.map { "presentation \($0.id): \($0.warning)" }
        return lines
    }

    /// The packages' line: installed, up to date, failed, bytes, delta updates, renewed links.
    package static func describe(_ report: ContentSyncReport) -> String {
        var text = "content: \(report.installed.count) installed, \(report.upToDate) up to date, \(report.failed.count) failed"
        text += String(format: "; %.1f MB transferred", Double(report.bytesTransferred) / 1e6)
        if report.bytesResumed > 0 { text += String(format: ", %.1f MB resumed from earlier runs", Double(report.bytesResumed) / 1e6) }
        if report.deltaUpdates > 0 {
            text += String(
                format: ", %d delta update%@ in %d range requests over %d connection%@, %.1f MB saved", report.deltaUpdates,
                report.deltaUpdates == 1 ? "" : "s", report.deltaRequests, report.deltaConnections, report.deltaConnections == 1 ? "" : "s",
                Double(report.bytesSaved) / 1e6)
        }
        if report.linkRenewals > 0 { text += ", \(report.linkRenewals) expired link\(report.linkRenewals == 1 ? "" : "s") renewed" }
        return text
    }
}
