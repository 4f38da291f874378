/// A moment's calendar fields in UTC (proleptic Gregorian calendar), computed arithmetically
/// from milliseconds since 1970 (days to civil date after Howard Hinnant's public-domain method).
struct UTCTime: Equatable {
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
