import Foundation
import StoryBridge

// storybridge-bench: measurements that compare a storybridge path with a baseline in the same run.
//   storybridge-bench custom-events [COUNT]   setCustomEvent through the bridge vs plain SQLite inserts
//   storybridge-bench roundtrip [--quick]     command round trips vs a plain WebSocket echo, Chromium,
//                                             memory per viewer, static serving
//       [--pipelined-only] [--rounds N] [--calls N] [--bridge-only | --echo-only]
//                                             only the pipelined comparison, N rounds of each path,
//                                             N calls per viewer in each round (300)
//                                             (--bridge-only: no echo rounds, --echo-only: no bridge
//                                             rounds, for profiling the host)
//   storybridge-bench mix [--quick] [--rounds N] [--only COMMAND] [--client swift|c|both]
//                                             the commands content calls most, by what they touch
//                                             (memory, SQLite read, SQLite write, a mix), pipelined
//                                             and sequential, each against the plain echo, measured
//                                             by this process's SwiftNIO client and by the C epoll
//                                             client storybridge-epoll-client (both by default)
//   storybridge-bench long-run [COUNT]       resident memory after COUNT (100,000) page loads from distinct
//                                             tabs vs after the first 1,000 (idle viewers leave memory)
//   storybridge-bench json [--rounds N]       the hand-written JSON reader and writer vs Foundation's
//                                             JSONSerialization, JSONDecoder and JSONEncoder on bridge frames
//   storybridge-bench sync [--total-mb N] [--packages N] [--big-mb N] [--rounds N]
//                                             storybridge sync --content vs curl + unzip of the same
//                                             packages from the content server on 127.0.0.1, and the
//                                             peak RSS of syncing one large package (--big-mb 0: skip)
//   storybridge-bench delta-sync [--rounds N] a ~300 MB package whose 200 KB slide changes: the
//                                             delta update's bytes, range requests and time vs curl
//                                             + unzip of those bytes; the bytes when ranges are ignored
//   storybridge-bench verify [--mb N] [--rounds N]
//                                             storybridge verify of an installed ~300 MB deck (about 40 %
//                                             of its bytes in small files) vs openssl dgst -sha256 of the
//                                             same files, child processes, alternating (TRUST.md 7.1)
//   storybridge-bench browser [--quick] [--network-timeline]
//                                             headless Chromium: in-page bridge calls vs the same page's
//                                             round trip to the plain echo; slide to slide (first bridge
//                                             answer) vs the same slides from a plain static file server
//   storybridge-bench browser --deck vendor [--pairs N] [--order alternate|host-first|static-first] [--isolate]
//                            [--static python|hummingbird]
//                                             the storyCLM.js repository's test deck (read at run time
//                                             from STORYCLM_JS_MIRROR), slide after slide, host vs static,
//                                             alternating; each load taken apart into phases
//   storybridge-bench fleet [--kiosks N] [--interval 5s] [--duration 10m] [--warm-up 1m]
//                                             issue #45's scale: a content-server --fleet hub (child) with N
//                                             simulated kiosks and the dashboard in headless Chromium: hub CPU,
//                                             memory, threads, database size, beat -> dashboard latency
//   storybridge-bench dialects [--rounds N] [--calls N] [--pairs N]
//                                             issue #43's costs: a Veeva call's in-page round trip (both
//                                             iPad transports) vs a storyclm.js call's; an OCE gotoSlide
//                                             vs a StoryCLM go, call to the next slide's load, in pairs

let arguments = Array(CommandLine.arguments.dropFirst())

/// The positive number after `flag`, `nil` when the flag is absent; exits with a message when the
/// number is missing or not positive.
func positiveOption(_ flag: String) -> Int? {
    guard let index = arguments.firstIndex(of: flag) else { return nil }
    guard index + 1 < arguments.count, let value = Int(arguments[index + 1]), value > 0 else {
        print("\(flag) needs a positive number")
        exit(2)
    }
    return value
}
let usage = """
    usage: storybridge-bench BENCHMARK [OPTIONS]
      custom-events [COUNT]      setCustomEvent through the bridge vs plain SQLite inserts (100,000)
      roundtrip [--quick] [--pipelined-only] [--rounds N] [--calls N] [--bridge-only | --echo-only]
                                 command round trips vs a plain WebSocket echo
      mix [--quick] [--rounds N] [--only COMMAND] [--client swift|c|both]
                                 the commands content calls most, by what they touch, measured
                                 by the SwiftNIO client, the C epoll client, or both (default;
                                 build storybridge-epoll-client too)
      long-run [COUNT]           resident memory after COUNT page loads (100,000; at least 1,000)
      json [--rounds N]          the host's JSON reader and writer vs Foundation's
      sync [--total-mb N] [--packages N] [--big-mb N] [--rounds N]
                                 storybridge sync --content vs curl + unzip
      delta-sync [--rounds N]    a changed slide of a ~300 MB package: delta update vs curl + unzip
      verify [--mb N] [--rounds N]
                                 storybridge verify of an installed deck (300 MB) vs openssl dgst -sha256 (6 rounds)
      browser [--quick] [--network-timeline]
                                 headless Chromium: in-page calls and slide-to-slide time
                                 (--network-timeline: when each step of a slide load crossed
                                 Chromium's network layer)
      browser --deck vendor [--pairs N] [--order alternate|host-first|static-first] [--isolate]
                            [--static python|hummingbird]
                                 the storyCLM.js test deck (a git mirror at STORYCLM_JS_MIRROR),
                                 host vs static, alternating, 50 pairs: each load by phase
                                 (--isolate: a third tab on the host with its socket withheld,
                                 to split the host's extra time)
      dialects [--rounds N] [--calls N] [--pairs N]
                                 headless Chromium: a Veeva call's round trip in the page vs a
                                 storyclm.js call's (20 rounds of 100 calls per path), and an OCE
                                 gotoSlide vs a StoryCLM go to the next slide's load (60 pairs)
      fleet [--kiosks N] [--interval 5s] [--duration 10m] [--warm-up 1m]
                                 the fleet hub with N (200) simulated kiosks and the dashboard in
                                 headless Chromium: hub CPU and memory, beat -> dashboard latency
                                 (storybridge-bench fleet --help explains)
    Any benchmark that starts storybridge serve passes it each --serve-argument ARG (repeatable),
    e.g. --serve-argument --connections-on-event-loop. With --echo-coalesced-flushes, the echo
    that roundtrip and mix compare with holds its flushes as the page sockets do (the bridge's
    write path without the bridge; the default echo flushes every message).
    docs/BENCHMARKS.md has the figures and the exact commands.
    """
guard let benchmark = arguments.first else {
    print(usage)
    exit(2)
}
if benchmark == "fleet", arguments.contains("--help") || arguments.contains("-h") {
    print(FleetBenchmark.usage)
    exit(0)
}
if ["--help", "-h", "help"].contains(benchmark) || arguments.contains("--help") || arguments.contains("-h") {
    print(usage)
    exit(0)
}

/// The COUNT after the benchmark's name, `fallback` when absent; exits with a message when it is
/// not a positive number.
func countArgument(fallback: Int) -> Int {
    guard arguments.count > 1 else { return fallback }
    guard let count = Int(arguments[1]), count > 0 else {
        print("COUNT must be a positive number, not '\(arguments[1])'")
        exit(2)
    }
    return count
}

switch benchmark {
case "custom-events":
    let count = countArgument(fallback: 100_000)
    print("recording \(count) custom events, baseline first, then the module path...")
    let plain = try plainInserts(count: count)
    let module = try await modulePath(count: count)
    let ratio = seconds(module) / seconds(plain)
    print(String(format: "plain SQLite inserts: %.3f s (%.0f rows/s)", seconds(plain), Double(count) / seconds(plain)))
    print(String(format: "setCustomEvent via the bridge: %.3f s (%.0f events/s)", seconds(module), Double(count) / seconds(module)))
    print(String(format: "ratio %.2fx (target <= 2.00x)", ratio))
case "roundtrip":
    var benchmark = RoundTripBenchmark(quick: arguments.contains("--quick"))
    benchmark.pipelinedOnly = arguments.contains("--pipelined-only")
    benchmark.bridgeOnly = arguments.contains("--bridge-only")
    benchmark.echoOnly = arguments.contains("--echo-only")
    if let rounds = positiveOption("--rounds") { benchmark.rounds = rounds }
    if let calls = positiveOption("--calls") { benchmark.calls = calls }
    try await benchmark.run()
case "mix":
    var benchmark = CommandMixBenchmark(quick: arguments.contains("--quick"))
    if let index = arguments.firstIndex(of: "--only") {
        guard index + 1 < arguments.count, CommandMixBenchmark.workloads.contains(where: { $0.name.hasPrefix(arguments[index + 1]) }) else {
            print("--only needs the name of a workload: \(CommandMixBenchmark.workloads.map(\.name).joined(separator: ", "))")
            exit(2)
        }
        benchmark.only = arguments[index + 1]
    }
    if let rounds = positiveOption("--rounds") { benchmark.rounds = rounds }
    if let index = arguments.firstIndex(of: "--client") {
        guard index + 1 < arguments.count, let clients = CommandMixBenchmark.Clients(rawValue: arguments[index + 1]) else {
            print("--client needs one of: \(CommandMixBenchmark.Clients.allCases.map(\.rawValue).joined(separator: ", "))")
            exit(2)
        }
        benchmark.clients = clients
    }
    try await benchmark.run()
case "long-run":
    // As `serve` does: the host's memory as it runs for weeks.
    AllocatorArenas.limit()
    let count = countArgument(fallback: 100_000)
    guard count >= 1_000 else {
        print("long-run needs at least 1000 page loads")
        exit(2)
    }
    try await LongRunBenchmark(pageLoads: count).run()
case "json":
    var benchmark = JSONBenchmark()
    if let rounds = positiveOption("--rounds") { benchmark.rounds = rounds }
    try benchmark.run()
case "sync":
    var benchmark = SyncBenchmark()
    for (flag, keyPath) in [
        ("--total-mb", \SyncBenchmark.totalMegabytes), ("--packages", \.packages), ("--big-mb", \.bigMegabytes), ("--rounds", \.rounds),
    ] {
        guard let index = arguments.firstIndex(of: flag) else { continue }
        guard index + 1 < arguments.count, let value = Int(arguments[index + 1]), value >= 0 else {
            print("\(flag) needs a number")
            exit(2)
        }
        benchmark[keyPath: keyPath] = value
    }
    guard benchmark.packages > 0, benchmark.rounds > 0, benchmark.totalMegabytes >= benchmark.packages else {
        print("--packages and --rounds must be positive, --total-mb at least one per package")
        exit(2)
    }
    try await benchmark.run()
case "delta-sync":
    var benchmark = DeltaSyncBenchmark()
    if let rounds = positiveOption("--rounds") { benchmark.rounds = rounds }
    benchmark.signed = !arguments.contains("--unsigned")
    try await benchmark.run()
case "manifest":
    var benchmark = ManifestBenchmark()
    if let files = positiveOption("--files") { benchmark.files = files }
    if let rounds = positiveOption("--rounds") { benchmark.rounds = rounds }
    try benchmark.run()
case "verify":
    var benchmark = VerifyBenchmark()
    if let megabytes = positiveOption("--mb") { benchmark.megabytes = megabytes }
    if let rounds = positiveOption("--rounds") { benchmark.rounds = rounds }
    try await benchmark.run()
case "browser" where arguments.contains("--deck"):
    guard let index = arguments.firstIndex(of: "--deck"), index + 1 < arguments.count, arguments[index + 1] == "vendor" else {
        print("--deck takes 'vendor' (the storyCLM.js repository's test deck, read from STORYCLM_JS_MIRROR)")
        exit(2)
    }
    var benchmark = VendorDeckBenchmark()
    if let pairs = positiveOption("--pairs") { benchmark.pairs = pairs }
    if let index = arguments.firstIndex(of: "--order") {
        guard index + 1 < arguments.count, let order = VendorDeckBenchmark.Order(rawValue: arguments[index + 1]) else {
            print("--order takes alternate, host-first or static-first")
            exit(2)
        }
        benchmark.order = order
    }
    benchmark.isolate = arguments.contains("--isolate")
    if let index = arguments.firstIndex(of: "--static") {
        guard index + 1 < arguments.count, let server = VendorDeckBenchmark.StaticServer(rawValue: arguments[index + 1]) else {
            print("--static takes python (python3 -m http.server, the default) or hummingbird (FileMiddleware, no-cache)")
            exit(2)
        }
        benchmark.staticServer = server
    }
    try await benchmark.run()
case "dialects":
    var benchmark = DialectBenchmark()
    if let rounds = positiveOption("--rounds") { benchmark.rounds = rounds }
    if let calls = positiveOption("--calls") { benchmark.callsPerRound = calls }
    if let pairs = positiveOption("--pairs") { benchmark.pairs = pairs }
    if let warmUp = positiveOption("--warm-up") { benchmark.warmUpCalls = warmUp }
    try await benchmark.run()
case "fleet" where arguments.contains("--screenshot"):
    guard let index = arguments.firstIndex(of: "--screenshot"), index + 1 < arguments.count else {
        print("--screenshot needs the PNG file to write")
        exit(2)
    }
    try await FleetScreenshot(file: URL(fileURLWithPath: arguments[index + 1])).run()
case "fleet":
    var benchmark = FleetBenchmark()
    if let kiosks = positiveOption("--kiosks") { benchmark.kiosks = kiosks }
    for (flag, keyPath) in [("--interval", \FleetBenchmark.interval), ("--duration", \.duration), ("--warm-up", \.warmUp)] {
        guard let index = arguments.firstIndex(of: flag) else { continue }
        guard index + 1 < arguments.count, let value = FleetBenchmark.parseDuration(arguments[index + 1]) else {
            print("\(flag) needs a duration: 90s, 10m, 1h or seconds")
            exit(2)
        }
        benchmark[keyPath: keyPath] = value
    }
    guard benchmark.interval >= .seconds(1), benchmark.duration > .zero else {
        print("--interval must be at least 1s, --duration positive")
        exit(2)
    }
    do {
        try await benchmark.run()
    } catch let failure as BenchmarkFailure {
        print(failure.description)
        exit(1)
    }
case "browser":
    var benchmark = BrowserBenchmark(quick: arguments.contains("--quick"))
    benchmark.networkTimeline = arguments.contains("--network-timeline")
    try await benchmark.run()
default:
    print(
        "unknown benchmark '\(benchmark)'; known: custom-events, roundtrip, mix, long-run, json, sync, delta-sync, verify, browser, dialects, fleet"
    )
    exit(2)
}
