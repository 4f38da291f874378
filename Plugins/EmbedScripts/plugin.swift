import Foundation
import PackagePlugin

/// Compiles the project's browser files (`js/client.js`, `js/storyclm.js`, the inspector page) into
/// the server target,
/// so the `storybridge` binary is self-contained and `js/` stays the single source of truth.
@main
struct EmbedScripts: BuildToolPlugin {
    static let scripts = [
        "client.js", "storyclm.js", "veeva.js", "oce.js", "inspector.html", "inspector.css", "inspector.js", "inspector-revisions.js",
    ]

    func createBuildCommands(context: PluginContext, target: any Target) throws -> [Command] {
        let folder = context.package.directoryURL.appending(path: "js")
        let inputs = Self.scripts.map { folder.appending(path: $0) }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedScriptSources.swift")
        return [
            .buildCommand(
                displayName: "Embedding js/ scripts into \(target.name)",
                executable: try context.tool(named: "embed-scripts").url,
                arguments: [output.path] + inputs.map(\.path),
                inputFiles: inputs,
                outputFiles: [output]
            )
        ]
    }
}
