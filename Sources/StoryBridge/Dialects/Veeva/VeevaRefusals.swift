/// Why storybridge refuses a function of the Veeva libraries, in the words of docs/DIALECTS.md
/// §3.3 and §4.2 (the functions it knows but does not carry out), or as unknown. The answer is
/// ``VeevaModule/failure(_:code:_:)``'s: `{success: false, code: 1000, message: "⟨function⟩: ⟨reason⟩"}`.
enum VeevaRefusals {
    /// The label functions: the app's answer shape is in no public source read.
    static let labelFunctions: Set<String> = [
        "getFieldLabel", "getObjectTypeLabels", "getRecordTypeLabels", "getPicklistValueLabels", "getObjectLabels",
    ]

    /// The reason `request` is refused.
    static func reason(for request: VeevaRequest) -> String {
        switch request.function {
        case "launchApprovedEmail":
            // launchApprovedEmail(⟨template⟩,⟨fragments⟩): the argument holds both, comma-separated.
            let argument = request.subject
            let comma = argument.firstIndex(of: ",")
            let template = comma.map { String(argument[..<$0]) } ?? argument
            let fragments = comma.map { String(argument[argument.index(after: $0)...]) } ?? ""
            return "storybridge has no Approved Email; asked for template '\(template)' with fragments '\(fragments)'"
        case _ where labelFunctions.contains(request.function):
            return "not answered: the app's answer for labels is in no public source read, so storybridge does not invent one"
        case "request":
            return "not carried out: outbound HTTP from Veeva content has no verified answer shape, so storybridge sends nothing"
        case "launchSelector":
            return "storybridge has no slide selector"
        default:
            return "unknown function: it is in none of the Veeva CRM and Vault CRM libraries read (docs/DIALECTS.md §3, §4)"
        }
    }
}
