/// A moment's calendar fields in UTC (proleptic Gregorian calendar), computed arithmetically
/// from milliseconds since 1970 (days to civil date after Howard Hinnant's public-domain method).
package struct UTCTime: Equatable {
    var year: Int
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int
    var millisecond: Int

    /// `nil` when `milliseconds` is not a finite whole number that fits in an `Int64`.
    init?(millisecondsSince1970 milliseconds: Double) {
        guard milliseconds.isFinite, abs(milliseconds) < 9e15, milliseconds == milliseconds.rounded() else { return nil }
        let total = Int64(milliseconds)
        let perDay: Int64 = 86_400_000
        let days = total >= 0 ? total / perDay : -((-total + perDay - 1) / perDay)
        let inDay = Int(total - days * perDay)
        millisecond = inDay % 1000
        second = inDay / 1000 % 60
        minute = inDay / 60_000 % 60
        hour = inDay / 3_600_000
        // Days since 1970-01-01 to a civil date, counted in 400-year eras from 0000-03-01.
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        day = Int(dayOfYear - (153 * monthFromMarch + 2) / 5 + 1)
        month = Int(monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9)
        year = Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0))
    }
}

extension UTCTime {
    /// Milliseconds since 1970 of the text `2026-12-01T09:30:00Z` or `2026-12-01T09:30:00.123Z`
    /// (UTC, four-digit year, exactly three fraction digits when there is a fraction), read
    /// arithmetically; `nil` for any other text, which callers hand to Foundation's parser.
    ///
    /// The fleet hub reads some ten such times in each of its kiosks' beats, and Foundation's
    /// ISO 8601 parser costs more than the rest of the beat's decoding.
    package static func millisecondsSince1970(iso8601 text: String) -> Int64? {
        var text = text
        return text.withUTF8 { bytes -> Int64? in
            guard bytes.count == 20 || bytes.count == 24, bytes[bytes.count - 1] == UInt8(ascii: "Z") else { return nil }
            func number(_ start: Int, _ count: Int) -> Int? {
                var value = 0
                for index in start..<start + count {
                    let digit = Int(bytes[index]) - 48
                    guard (0...9).contains(digit) else { return nil }
                    value = value * 10 + digit
                }
                return value
            }
            func separator(_ index: Int, _ character: Character) -> Bool { bytes[index] == character.asciiValue }
            guard separator(4, "-"), separator(7, "-"), separator(10, "T"), separator(13, ":"), separator(16, ":"),
                let year = number(0, 4), let month = number(5, 2), let day = number(8, 2), let hour = number(11, 2),
                let minute = number(14, 2), let second = number(17, 2),
                (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour < 24, minute < 60, second < 60
            else { return nil }
            var millisecond = 0
            if bytes.count == 24 {
                guard separator(19, "."), let fraction = number(20, 3) else { return nil }
                millisecond = fraction
            }
            let days = daysSince1970(year: year, month: month, day: day)
            return ((days * 24 + Int64(hour)) * 60 + Int64(minute)) * 60_000 + Int64(second) * 1000 + Int64(millisecond)
        }
    }

    /// Days from 1970-01-01 to the civil date (the inverse of the conversion in
    /// ``init(millisecondsSince1970:)``, after the same public-domain method).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int64 {
        let year = Int64(month <= 2 ? year - 1 : year)
        let era = (year >= 0 ? year : year - 399) / 400
        let yearOfEra = year - era * 400
        let monthFromMarch = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * monthFromMarch + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// How many days `month` of `year` has (proleptic Gregorian).
    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
