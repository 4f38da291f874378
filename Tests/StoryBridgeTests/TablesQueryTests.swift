import Testing

@testable import StoryBridge

@Suite("Tables query language")
struct TablesQueryTests {
    let people: [[String: JSONValue]] = [
        ["name": "Stanislav", "age": 22, "gender": true], ["name": "Tamerlan", "age": 35, "gender": true],
        ["name": "Vera", "age": 28, "gender": false], ["name": "Anna", "age": 41, "gender": false],
    ]

    func names(_ query: String) throws -> [String] {
        let parsed = try TablesQuery.parse(query)
        return try people.filter(parsed.matches).compactMap { $0["name"]?.stringValue }
    }

    @Test("comparisons, lists, text operators and regex")
    func operators() throws {
        #expect(try names("[age][lte][28]") == ["Stanislav", "Vera"])
        #expect(try names(#"[name][sw]["T"]"#) == ["Tamerlan"])
        #expect(try names(#"[Name][cn]["an"]"#) == ["Stanislav", "Tamerlan", "Anna"])
        #expect(try names(#"[name][in]["Vera","Anna"]"#) == ["Vera", "Anna"])
        #expect(try names(#"[name][nin]["Vera","Anna"]"#) == ["Stanislav", "Tamerlan"])
        #expect(try names(#"[name][ew]["a"]"#) == ["Vera", "Anna"])
        #expect(try names(#"[name][re]["^[ST]"]"#) == ["Stanislav", "Tamerlan"])
        #expect(try names("[gender][ne][true]") == ["Vera", "Anna"])
        #expect(try names("") == ["Stanislav", "Tamerlan", "Vera", "Anna"])
    }

    @Test("[and] binds tighter than [or]; parentheses group")
    func precedence() throws {
        #expect(try names("[gender][eq][true][and][age][lt][30][or][gender][eq][false][and][age][gt][30]") == ["Stanislav", "Anna"])
        #expect(try names(#"([age][lt][25][or][age][gt][40])[and]([name][sw]["S"][or][name][sw]["A"])"#) == ["Stanislav", "Anna"])
    }

    @Test(
        "malformed queries say where",
        arguments: [
            ("[age][gt]", "expected '[' before a value at character 10"), ("[age][zz][1]", "unknown operator 'zz'"),
            (#"[name][eq]["open"#, "unclosed string"), ("([age][gt][1]", "expected ')'"), ("[age][gt][1] junk", "unexpected 'j'"),
            (#"[name][re]["(S"]"#, "invalid regular expression '(S' in [re] at character 11"),
        ])
    func errors(query: String, message: String) {
        #expect {
            _ = try TablesQuery.parse(query)
        } throws: { error in
            (error as? TablesQuery.ParseError)?.description.contains(message) == true
        }
    }

    @Test("a query built in code with an invalid pattern fails to match, naming the pattern, instead of matching nothing")
    func invalidPatternInCode() throws {
        let query = TablesQuery.comparison(field: "name", op: "re", values: ["[a"])
        #expect(throws: TablesQuery.MatchError.self) { _ = try query.matches(["name": "abc"]) }
        #expect(try !TablesQuery.comparison(field: "name", op: "re", values: [.null]).matches(["name": "abc"]))
    }
}
