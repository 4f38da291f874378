import Foundation
import StoryBridge

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The script files `storybridge test` runs, from what was given on its command line: files, folders
/// and glob patterns.
///
/// - A file is run as it is.
/// - A folder runs the `.yaml`, `.yml` and `.json` files directly in it, sorted by name. Subfolders are
///   not entered: they usually hold the presentations the scripts test, whose `.json` files are not
///   scripts. Files named `schema.json` (the script format's JSON Schema) are skipped.
/// - Anything else with `*`, `?` or `[` is a glob pattern (glob(3)), expanded here so a quoted pattern
///   works as well as one the shell expanded; the matches run sorted.
///
/// Each file runs once, in the order the arguments name them.
enum ScriptFiles {
    static let extensions: Set<String> = ["yaml", "yml", "json"]

    /// Why an argument names no script.
    enum Problem: Error, Equatable, CustomStringConvertible {
        case unusable(path: String, SystemProblem)
        case emptyFolder(String)
        case noMatch(pattern: String)

        var description: String {
            switch self {
            case .unusable(let path, let problem): "'\(path)': \(problem)"
            case .emptyFolder(let path): "'\(path)' holds no script (.yaml, .yml or .json)"
            case .noMatch(let pattern): "no file matches '\(pattern)'"
            }
        }
    }

    static func resolve(_ arguments: [String]) throws(Problem) -> [String] {
        var files: [String] = []
        for argument in arguments {
            for file in try expand(argument) where !files.contains(file) { files.append(file) }
        }
        return files
    }

    static func expand(_ argument: String) throws(Problem) -> [String] {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory) {
            return isDirectory.boolValue ? try scripts(inFolder: argument) : [argument]
        }
        guard argument.contains(where: { "*?[".contains($0) }) else { throw .unusable(path: argument, .notFound) }
        let matches = expandPattern(argument)
        guard !matches.isEmpty else { throw .noMatch(pattern: argument) }
        return matches.filter { isScript($0) || !isFolder($0) }
    }

    static func scripts(inFolder folder: String) throws(Problem) -> [String] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            throw .unusable(path: folder, SystemProblem(error))
        }
        let scripts = names.sorted().map { (folder as NSString).appendingPathComponent($0) }.filter {
            isScript($0) && !isFolder($0) && ($0 as NSString).lastPathComponent != "schema.json"
        }
        guard !scripts.isEmpty else { throw .emptyFolder(folder) }
        return scripts
    }

    static func isScript(_ path: String) -> Bool {
        extensions.contains((path as NSString).pathExtension.lowercased())
    }

    static func isFolder(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// The paths matching `pattern`, sorted.
    static func expandPattern(_ pattern: String) -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        guard glob(pattern, 0, nil, &result) == 0 else { return [] }
        return (0..<Int(result.gl_pathc)).compactMap { index in result.gl_pathv[index].map { String(cString: $0) } }.sorted()
    }
}
