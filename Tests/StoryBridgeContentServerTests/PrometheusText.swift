import Foundation

/// Prometheus text format (0.0.4) read back, for the hub's `/v1/fleet/metrics` tests: each sample
/// with its name, labels (escapes undone) and value, and each family's `# TYPE`. A line that is
/// neither a comment nor a well-formed sample is a parse error naming it.
struct PrometheusText {
    struct Sample: Equatable {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    struct ParseError: Error, CustomStringConvertible {
        var line: String
        var description: String { "not a Prometheus sample line: \(line)" }
    }

    var samples: [Sample] = []
    var types: [String: String] = [:]

    init(_ text: String) throws {
        for line in text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init) {
            if line.hasPrefix("# TYPE ") {
                let parts = line.split(separator: " ")
                guard parts.count == 4 else { throw ParseError(line: line) }
                types[String(parts[2])] = String(parts[3])
                continue
            }
            if line.hasPrefix("#") { continue }
            samples.append(try Self.sample(line))
        }
    }

    /// The samples named `name` whose labels include `labels`.
    func values(_ name: String, _ labels: [String: String] = [:]) -> [Double] {
        samples.filter { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }.map(\.value)
    }

    private static func sample(_ line: String) throws -> Sample {
        var characters = Substring(line)
        let name = characters.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" }
        guard !name.isEmpty, name.first?.isNumber == false else { throw ParseError(line: line) }
        characters = characters.dropFirst(name.count)
        var labels: [String: String] = [:]
        if characters.first == "{" {
            characters = characters.dropFirst()
            while characters.first != "}" {
                let key = characters.prefix { $0.isLetter || $0.isNumber || $0 == "_" }
                characters = characters.dropFirst(key.count)
                guard !key.isEmpty, characters.hasPrefix("=\"") else { throw ParseError(line: line) }
                characters = characters.dropFirst(2)
                var value = ""
                while let character = characters.first, character != "\"" {
                    characters = characters.dropFirst()
                    if character == "\\" {
                        guard let escaped = characters.first else { throw ParseError(line: line) }
                        characters = characters.dropFirst()
                        switch escaped {
                        case "n": value.append("\n")
                        case "\\", "\"": value.append(escaped)
                        default: throw ParseError(line: line)
                        }
                    } else {
                        value.append(character)
                    }
                }
                guard characters.first == "\"" else { throw ParseError(line: line) }
                characters = characters.dropFirst()
                labels[String(key)] = value
                if characters.first == "," { characters = characters.dropFirst() }
            }
            characters = characters.dropFirst()
        }
        guard characters.first == " " else { throw ParseError(line: line) }
        let rest = characters.dropFirst().split(separator: " ")
        guard let first = rest.first, rest.count <= 2 else { throw ParseError(line: line) }
        let value: Double? =
            switch first {
            case "+Inf": Double.infinity
            case "-Inf": -Double.infinity
            case "NaN": Double.nan
            default: Double(first)
            }
        guard let value else { throw ParseError(line: line) }
        return Sample(name: String(name), labels: labels, value: value)
    }
}
