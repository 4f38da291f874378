import Foundation

/// A fast JSON writer for ``JSONValue``: compact, keys sorted, `/` not escaped.
enum JSONWriter {
    static func write(_ value: JSONValue) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    /// A response in its wire form, written member by member in the same (sorted) order as
    /// ``write(_:)`` would write ``BridgeResponse/json``, without building the object first.
    static func write(_ response: BridgeResponse) -> String {
        String(decoding: bytes(response), as: UTF8.self)
    }

    /// The UTF-8 bytes of ``write(_:)-(BridgeResponse)``, for writing to the wire without making a `String`.
    static func bytes(_ response: BridgeResponse) -> [UInt8] {
        var output = [UInt8]()
        output.reserveCapacity(128)
        append(response, to: &output)
        return output
    }

    /// The UTF-8 bytes of ``write(_:)-(JSONValue)``.
    static func bytes(_ value: JSONValue) -> [UInt8] {
        var output = [UInt8]()
        output.reserveCapacity(256)
        append(value, to: &output)
        return output
    }

    /// Writes `response` as ``write(_:)-(BridgeResponse)`` does, at the end of `output`.
    static func append(_ response: BridgeResponse, to output: inout [UInt8]) {
        appendLiteral(#"{"Data":"#, to: &output)
        response.payload.append(to: &output)
        appendLiteral(#","ErrorCode":"#, to: &output)
        if response.errorCode == 200 {
            appendLiteral("200", to: &output)
        } else {
            appendASCII(String(response.errorCode), to: &output)
        }
        appendLiteral(#","ErrorMessage":"#, to: &output)
        appendString(response.errorMessage, to: &output)
        appendLiteral(#","GUID":"#, to: &output)
        appendString(response.guid, to: &output)
        switch response.status {
        case .success: appendLiteral(#","Status":"Success"}"#, to: &output)
        case .failure: appendLiteral(#","Status":"Failure"}"#, to: &output)
        }
    }

    /// Copies the bytes of a literal (no reference counting of a `String`'s storage).
    @inline(__always)
    private static func appendLiteral(_ text: StaticString, to output: inout [UInt8]) {
        text.withUTF8Buffer { output.append(contentsOf: $0) }
    }

    /// Copies text known to need no escaping (a number's digits).
    private static func appendASCII(_ text: String, to output: inout [UInt8]) {
        for byte in text.utf8 { output.append(byte) }
    }

    static func append(_ value: JSONValue, to output: inout [UInt8]) {
        switch value {
        case .null: appendLiteral("null", to: &output)
        case .bool(let flag): flag ? appendLiteral("true", to: &output) : appendLiteral("false", to: &output)
        case .int(let number): appendASCII(String(number), to: &output)
        case .double(let number):
            if !number.isFinite {
                appendLiteral("null", to: &output)
            } else if number == number.rounded(), abs(number) < 1e15 {
                appendASCII(String(Int64(number)), to: &output)
            } else {
                appendASCII("\(number)", to: &output)
            }
        case .string(let text): appendString(text, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                append(element, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members) where members.count == 1:
            // One member (`{"slide": ...}`): nothing to sort.
            let member = members.first!
            output.append(UInt8(ascii: "{"))
            appendString(member.key, to: &output)
            output.append(UInt8(ascii: ":"))
            append(member.value, to: &output)
            output.append(UInt8(ascii: "}"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (position, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                appendString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                append(member.value, to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    static func appendString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Most strings need no escaping: copy them whole, straight from their storage.
        let copiedWhole = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }) else { return false }
            output.append(contentsOf: bytes)
            return true
        }
        if copiedWhole == true {
            output.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case 0x22: appendLiteral(#"\""#, to: &output)
            case 0x5C: appendLiteral(#"\\"#, to: &output)
            case 0x0A: appendLiteral(#"\n"#, to: &output)
            case 0x0D: appendLiteral(#"\r"#, to: &output)
            case 0x09: appendLiteral(#"\t"#, to: &output)
            case 0x08: appendLiteral(#"\b"#, to: &output)
            case 0x0C: appendLiteral(#"\f"#, to: &output)
            case 0..<0x20:
                let hex: StaticString = "0123456789abcdef"
                appendLiteral(#"\u00"#, to: &output)
                output.append(hex.utf8Start[Int(byte >> 4)])
                output.append(hex.utf8Start[Int(byte & 0xF)])
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
