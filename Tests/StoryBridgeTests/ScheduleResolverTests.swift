import Foundation
import Testing

@testable import StoryBridge

/// Schedules (docs/design/FLEET.md §10): reading, refusals naming the entries, and what plays when,
/// daylight-saving gaps and repeats included, in zones of the system's database.
@Suite("Deck schedules")
struct ScheduleResolverTests {
    private func schedule(_ text: String) throws -> DeckSchedule { try DeckSchedule.parse(try JSONValue.parse(text)) }

    private func instant(_ text: String) throws -> Date { try #require(ISO8601DateFormatter().date(from: text)) }

    private func utc(_ date: Date) -> String { ISO8601DateFormatter().string(from: date) }

    /// The deck and the window playing at `moment` (UTC), and until when (UTC).
    private func plays(_ schedule: DeckSchedule, at moment: String) throws -> (Int?, String?, String) {
        let (entry, until) = ScheduleResolver(schedule).entry(at: try instant(moment))
        return (entry?.target.presentation, entry?.window, utc(until))
    }

    private func refusal(_ text: String) throws -> String {
        let json = try JSONValue.parse(text)
        do throws(ScheduleError) {
            _ = try DeckSchedule.parse(json)
        } catch {
            return error.description
        }
        Issue.record("accepted: \(text)")
        return ""
    }

    @Test("the schedule as understood (the hello's): the configuration's shape, read back to the same schedule")
    func asJSON() throws {
        let text = """
            {"timeZone": "Europe/Berlin", "default": {"presentation": 12},
             "weekly": [{"days": ["FRI", "mon"], "from": "08:00", "to": "12:00", "presentation": 13, "slide": "intro.html"},
                        {"days": ["sat"], "from": "22:00", "to": "02:00", "presentation": 14}],
             "exceptions": [{"date": "2026-12-24", "windows": [{"from": "10:00", "to": "24:00", "presentation": 15}]},
                            {"date": "2026-12-25", "windows": []}]}
            """
        let parsed = try schedule(text)
        #expect(
            parsed.json == [
                "timeZone": "Europe/Berlin", "default": ["presentation": 12],
                "weekly": [
                    ["days": ["mon", "fri"], "from": "08:00", "to": "12:00", "presentation": 13, "slide": "intro.html"],
                    ["days": ["sat"], "from": "22:00", "to": "02:00", "presentation": 14],
                ],
                "exceptions": [
                    ["date": "2026-12-24", "windows": [["from": "10:00", "to": "24:00", "presentation": 15]]],
                    ["date": "2026-12-25", "windows": []],
                ],
            ])
        #expect(try DeckSchedule.parse(parsed.json) == parsed)
        #expect(try schedule(#"{"timeZone": "UTC"}"#).json["default"] == .null)
    }

    @Test("weekly windows, over midnight, the default, and an exception that replaces its date and cuts the night before")
    func weekly() throws {
        let berlin = try schedule(
            """
            {"timeZone": "Europe/Berlin", "default": {"presentation": 12},
             "weekly": [{"days": ["mon", "tue", "wed", "thu", "fri"], "from": "08:00", "to": "12:00", "presentation": 13, "slide": "index.html"},
                        {"days": ["sat"], "from": "22:00", "to": "02:00", "presentation": 14}],
             "exceptions": [{"date": "2026-12-24", "windows": [{"from": "10:00", "to": "14:00", "presentation": 15}]},
                            {"date": "2026-12-06", "windows": []}]}
            """)
        // Wednesday 2 December 2026, CET (UTC+1).
        #expect(try plays(berlin, at: "2026-12-02T06:59:00Z") == (12, nil, "2026-12-02T07:00:00Z"))
        #expect(try plays(berlin, at: "2026-12-02T07:00:00Z") == (13, "schedule.weekly[0]", "2026-12-02T11:00:00Z"))
        #expect(ScheduleResolver(berlin).entry(at: try instant("2026-12-02T08:00:00Z")).entry?.target.slide == "index.html")
        // Saturday 22:00 to Sunday 02:00.
        #expect(try plays(berlin, at: "2026-12-12T21:00:00Z") == (14, "schedule.weekly[1]", "2026-12-13T01:00:00Z"))
        #expect(try plays(berlin, at: "2026-12-13T00:30:00Z") == (14, "schedule.weekly[1]", "2026-12-13T01:00:00Z"))
        #expect(try plays(berlin, at: "2026-12-13T01:00:00Z").0 == 12)
        // Sunday 6 December is an exception with no windows: Saturday night's window stops at its midnight.
        #expect(try plays(berlin, at: "2026-12-05T22:59:00Z") == (14, "schedule.weekly[1]", "2026-12-05T23:00:00Z"))
        #expect(try plays(berlin, at: "2026-12-05T23:30:00Z").0 == 12)
        // Thursday 24 December: the exception's window instead of the weekday's.
        #expect(try plays(berlin, at: "2026-12-24T08:00:00Z") == (12, nil, "2026-12-24T09:00:00Z"))
        #expect(try plays(berlin, at: "2026-12-24T09:00:00Z") == (15, "schedule.exceptions[0].windows[0]", "2026-12-24T13:00:00Z"))
        #expect(ScheduleResolver(berlin).entry(at: try instant("2026-12-24T09:00:00Z")).entry?.source == "exception")

        // Without a default nothing plays outside the windows.
        let noDefault = try schedule(
            #"{"timeZone": "Asia/Tokyo", "weekly": [{"days": ["sun"], "from": "09:00", "to": "24:00", "presentation": 3}]}"#)
        #expect(try plays(noDefault, at: "2026-12-05T23:59:00Z") == (nil, nil, "2026-12-06T00:00:00Z"))
        #expect(try plays(noDefault, at: "2026-12-06T00:00:00Z") == (3, "schedule.weekly[0]", "2026-12-06T15:00:00Z"))
    }

    @Test("daylight saving: a time in the spring gap starts after it, a window inside it is empty; a repeated time is its first")
    func daylightSaving() throws {
        func sunday(_ zone: String, _ from: String, _ to: String) throws -> DeckSchedule {
            try schedule(
                #"{"timeZone": "\#(zone)", "default": {"presentation": 1}, "weekly": [{"days": ["sun"], "from": "\#(from)", "to": "\#(to)", "presentation": 2}]}"#
            )
        }
        // Berlin, 29 March 2026: 02:00 CET becomes 03:00 CEST.
        #expect(try plays(sunday("Europe/Berlin", "02:00", "03:00"), at: "2026-03-29T00:59:00Z") == (1, nil, "2026-04-05T00:00:00Z"))
        #expect(try plays(sunday("Europe/Berlin", "02:30", "04:00"), at: "2026-03-29T00:59:00Z") == (1, nil, "2026-03-29T01:00:00Z"))
        #expect(try plays(sunday("Europe/Berlin", "02:30", "04:00"), at: "2026-03-29T01:00:00Z").2 == "2026-03-29T02:00:00Z")
        // Berlin, 25 October 2026: 03:00 CEST becomes 02:00 CET; 01:00–03:00 lasts three hours, 02:30 is the first one.
        #expect(
            try plays(sunday("Europe/Berlin", "01:00", "03:00"), at: "2026-10-24T23:00:00Z") == (
                2, "schedule.weekly[0]", "2026-10-25T02:00:00Z"
            ))
        #expect(try plays(sunday("Europe/Berlin", "02:30", "04:00"), at: "2026-10-25T00:29:00Z") == (1, nil, "2026-10-25T00:30:00Z"))
        // New York, 8 March 2026 (02:00 EST becomes 03:00 EDT) and 1 November 2026 (02:00 EDT becomes 01:00 EST).
        #expect(try plays(sunday("America/New_York", "02:00", "03:00"), at: "2026-03-08T06:59:00Z").2 == "2026-03-15T06:00:00Z")
        #expect(
            try plays(sunday("America/New_York", "02:15", "05:00"), at: "2026-03-08T07:00:00Z") == (
                2, "schedule.weekly[0]", "2026-03-08T09:00:00Z"
            ))
        #expect(
            try plays(sunday("America/New_York", "00:30", "02:30"), at: "2026-11-01T04:30:00Z") == (
                2, "schedule.weekly[0]", "2026-11-01T07:30:00Z"
            ))
        // Lord Howe, 4 October 2026: 02:00 (UTC+10:30) becomes 02:30 (UTC+11), a 30-minute gap.
        #expect(try plays(sunday("Australia/Lord_Howe", "02:00", "02:30"), at: "2026-10-03T15:29:00Z").2 == "2026-10-10T15:00:00Z")
        #expect(try plays(sunday("Australia/Lord_Howe", "02:15", "03:00"), at: "2026-10-03T15:29:00Z") == (1, nil, "2026-10-03T15:30:00Z"))
        #expect(try plays(sunday("Australia/Lord_Howe", "02:15", "03:00"), at: "2026-10-03T15:30:00Z").2 == "2026-10-03T16:00:00Z")
        // A zone without daylight saving: the same wall times all year.
        #expect(
            try plays(sunday("Asia/Tokyo", "02:00", "03:00"), at: "2026-03-28T17:00:00Z") == (
                2, "schedule.weekly[0]", "2026-03-28T18:00:00Z"
            ))
    }

    @Test("refusals name the entries: overlaps (over midnight too), times, days, zones, dates, exception windows past midnight")
    func refusals() throws {
        #expect(
            try refusal(
                #"{"weekly": [{"days": ["mon", "tue"], "from": "08:00", "to": "10:00", "presentation": 1}, {"days": ["tue"], "from": "09:00", "to": "12:00", "presentation": 2}]}"#
            ) == "schedule.weekly[0] overlaps schedule.weekly[1] on tue 09:00–10:00")
        #expect(
            try refusal(
                #"{"weekly": [{"days": ["sat"], "from": "22:00", "to": "02:00", "presentation": 1}, {"days": ["sun"], "from": "01:00", "to": "03:00", "presentation": 2}]}"#
            ) == "schedule.weekly[0] overlaps schedule.weekly[1] on sun 01:00–02:00")
        #expect(
            try refusal(#"{"weekly": [{"days": ["mon"], "from": "8:00", "to": "10:00", "presentation": 1}]}"#)
                == "schedule.weekly[0].from: '8:00' is not a time HH:MM (00:00 to 23:59)")
        #expect(
            try refusal(#"{"weekly": [{"days": ["monday"], "from": "08:00", "to": "10:00", "presentation": 1}]}"#)
                == "schedule.weekly[0].days: 'monday' is not one of mon, tue, wed, thu, fri, sat, sun")
        #expect(try refusal(#"{"timeZone": "Mars/Olympus"}"#).hasPrefix("schedule.timeZone: 'Mars/Olympus' is not a time zone"))
        #expect(
            try refusal(#"{"exceptions": [{"date": "2026-12-24", "windows": []}, {"date": "2026-12-24", "windows": []}]}"#)
                == "schedule.exceptions[0] and schedule.exceptions[1] are both for 2026-12-24")
        #expect(
            try refusal(#"{"exceptions": [{"date": "2026-02-30", "windows": []}]}"#)
                == "schedule.exceptions[0].date: must be a date YYYY-MM-DD")
        #expect(
            try refusal(#"{"exceptions": [{"date": "2026-12-31", "windows": [{"from": "22:00", "to": "01:00", "presentation": 1}]}]}"#)
                == "schedule.exceptions[0].windows[0]: an exception's window may not run past midnight (from 22:00 to 01:00)")
        #expect(
            try refusal(#"{"default": {"presentation": 0}}"#)
                == "schedule.default.presentation: must be a presentation id (a positive integer)")
        #expect(try refusal(#"{"weekly": [], "dafault": {}}"#).hasPrefix("schedule.dafault: unknown member"))
    }
}
