import Foundation

/// The login form of `/fleet/login` (docs/design/FLEET.md §5.4): user name, password and the
/// double-submit token (the same value as the `sb_fleet_login` cookie). It names no kiosk.
struct FleetLoginPage: Sendable {
    /// The form's hidden `csrf` value.
    var loginToken: String
    /// The user name to fill in again after a failure.
    var username = ""
    /// Why the last attempt failed, if it did.
    var problem: String?

    /// The page's HTML.
    var html: String {
        let problemLine = problem.map { "<p class=\"problem\" role=\"alert\">\(FleetHTML.escape($0))</p>\n" } ?? ""
        return FleetHTML.page(
            title: "storybridge fleet: sign in",
            body: """
                <main>
                <h1>Fleet</h1>
                \(problemLine)<form method="post" action="/fleet/login">
                <input type="hidden" name="csrf" value="\(FleetHTML.escape(loginToken))">
                <p><label>User name <input name="username" autocomplete="username" required value="\(FleetHTML.escape(username))"></label></p>
                <p><label>Password <input name="password" type="password" autocomplete="current-password" required></label></p>
                <p><button type="submit">Sign in</button></p>
                </form>
                </main>
                """)
    }
}
