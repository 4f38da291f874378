// swift-tools-version:6.0
import PackageDescription

let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny")
]

/// The targets on the command path: an async function runs on its caller's executor unless it
/// says otherwise (`@concurrent`), so a call on that path does not hop executors.
let commandPathSettings: [SwiftSetting] =
    strictSettings + [
        .enableUpcomingFeature("NonisolatedNonsendingByDefault")
    ]

let package = Package(
    name: "storybridge",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "StoryBridge", targets: ["StoryBridge"]),
        .library(name: "StoryBridgeServer", targets: ["StoryBridgeServer"]),
        .library(name: "StoryBridgeScripts", targets: ["StoryBridgeScripts"]),
        .library(name: "StoryIoTCollector", targets: ["StoryIoTCollector"]),
        .library(name: "StoryBridgeTesting", targets: ["StoryBridgeTesting"]),
        .library(name: "StoryBridgeSync", targets: ["StoryBridgeSync"]),
        .library(name: "StoryBridgeContentServer", targets: ["StoryBridgeContentServer"]),
        .library(name: "StoryBridgeFleet", targets: ["StoryBridgeFleet"]),
        .executable(name: "storybridge", targets: ["storybridge"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        // Bcrypt for the fleet admins' `passwordBcrypt` and `content-server hash-password`.
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // 4.1 or later: jwt-kit 5.7 asks for it.
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.1.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
        // FileDescriptor, for the streams handed to swift-subprocess (it resolves it already).
        .package(url: "https://github.com/apple/swift-system", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "5.0.1"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        // `swift package generate-documentation --target StoryBridge`: the embedding guide's catalog.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CMinizip",
            pkgConfig: "minizip",
            providers: [.apt(["libminizip-dev"])]
        ),
        .target(
            name: "StoryBridge",
            dependencies: [
                "CMinizip",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                // NIOThreadPool, for file I/O off the cooperative pool (BlockingIO).
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: commandPathSettings
        ),
        .target(
            name: "StoryBridgeSync",
            dependencies: [
                "StoryBridge",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ],
            swiftSettings: strictSettings
        ),
        .target(
            name: "StoryBridgeServer",
            dependencies: [
                "StoryBridge",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: commandPathSettings,
            plugins: ["EmbedScripts"]
        ),
        // The development collector behind `storybridge collector` (and the upload tests).
        .target(
            name: "StoryIoTCollector",
            dependencies: [
                "StoryBridge",
                "StoryBridgeServer",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strictSettings
        ),
        // The script runner behind `storybridge test`: scripted viewers, headless Chromium and an
        // in-process host. Shipped in the CLI.
        .target(
            name: "StoryBridgeScripts",
            dependencies: [
                "StoryBridge",
                "StoryBridgeServer",
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
                // The WebSocket client (Viewer/WebSocketClientHandler.swift) is written on NIO.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictSettings
        ),
        .executableTarget(name: "embed-scripts", path: "Sources/embed-scripts"),
        // The fleet's wire, beat builder and kiosk agent (docs/design/FLEET.md): used by serve's agent,
        // the content server's hub and the benchmark. It holds no server.
        .target(
            name: "StoryBridgeFleet",
            dependencies: [
                "StoryBridge",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                // The agent (serve --fleet): its socket to the hub, the probe of a refused upgrade, its service.
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: strictSettings
        ),
        // `storybridge content-server`: a StoryCLM-compatible content API (token endpoint, clients,
        // presentations, packages behind signed links) served from a storybridge library.
        .target(
            name: "StoryBridgeContentServer",
            dependencies: [
                "StoryBridge",
                "CMinizip",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                // The fleet hub (docs/design/FLEET.md §5): its database, content-server/hub.sqlite,
                // the kiosks' sockets and the wire.
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                "StoryBridgeFleet",
                // The fleet admins' bcrypt password hashes (docs/design/FLEET.md §5.4).
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                // The hub's own metrics (/v1/fleet/metrics, docs/design/FLEET.md §7.2).
                .product(name: "Prometheus", package: "swift-prometheus"),
                // Webhook deliveries (docs/design/FLEET.md §8).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strictSettings
        ),
        // The custom-module example (Examples/CustomModule): a module library, a program that embeds
        // the runtime with it, and its tests.
        .target(
            name: "ClientCardModule",
            dependencies: ["StoryBridge"],
            path: "Examples/CustomModule/Sources/ClientCardModule",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "custom-module-example",
            dependencies: [
                "ClientCardModule", "StoryBridge", "StoryBridgeServer",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Examples/CustomModule/Sources/custom-module-example",
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "ClientCardModuleTests",
            dependencies: ["ClientCardModule", "StoryBridge", "StoryBridgeTesting"],
            path: "Examples/CustomModule/Tests/ClientCardModuleTests",
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "storybridge-bench",
            dependencies: [
                "StoryBridge", "StoryBridgeTesting", "StoryBridgeContentServer", "StoryBridgeFleet",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/Sources/storybridge-bench",
            swiftSettings: strictSettings
        ),
        // The command benchmark's second client, outside the Swift/NIO stack: C11 on Linux epoll,
        // no dependencies (`storybridge-bench mix --client c|both`).
        .executableTarget(name: "storybridge-epoll-client", path: "Benchmarks/Sources/storybridge-epoll-client"),
        .plugin(name: "EmbedScripts", capability: .buildTool(), dependencies: ["embed-scripts"]),
        // Helpers for test targets only (never linked into the CLI): the script runner's viewer
        // client and test host (re-exported), a zip writer and a clock tests move by hand.
        .target(
            name: "StoryBridgeTesting",
            dependencies: ["StoryBridge", "StoryBridgeScripts", "CMinizip"],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "storybridge",
            dependencies: [
                "StoryBridge",
                "StoryBridgeServer",
                "StoryBridgeScripts",
                "StoryIoTCollector",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                "StoryBridgeContentServer",
                "StoryBridgeSync",
                "StoryBridgeFleet",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // `storybridge kiosk`'s control socket to serve (text and binary frames).
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StoryBridgeTests",
            dependencies: ["StoryBridge", "StoryBridgeTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StoryBridgeSyncTests",
            dependencies: [
                "StoryBridge", "StoryBridgeSync", "StoryBridgeTesting", "StoryBridgeContentServer",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["StoryBridge", "StoryBridgeServer", "StoryBridgeTesting"],
            swiftSettings: strictSettings
        ),
        // Test-only: a pass-through SQLite VFS that counts the writes and syncs of one database's
        // write-ahead log, for the durability test of StoryBridgeServerTests.
        .target(name: "CWALSyncProbe", path: "Tests/CWALSyncProbe", linkerSettings: [.linkedLibrary("sqlite3")]),
        // Test-only: holds open(2) of chosen files, for the test that a slide whose file does not
        // answer leaves the cooperative pool alone (FileIOOffThePoolTests).
        .target(name: "CFileOpenProbe", path: "Tests/CFileOpenProbe"),
        .testTarget(
            name: "StoryBridgeServerTests",
            dependencies: [
                "CWALSyncProbe",
                "CFileOpenProbe",
                "StoryBridge",
                "StoryBridgeServer",
                "StoryBridgeTesting",
                "StoryIoTCollector",
                "StoryBridgeScripts",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
            ],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StoryBridgeFleetTests",
            dependencies: ["StoryBridge", "StoryBridgeFleet", "StoryBridgeTesting"],
            swiftSettings: strictSettings
        ),
        .testTarget(
            name: "StoryBridgeContentServerTests",
            dependencies: [
                "StoryBridge",
                "StoryBridgeContentServer",
                "StoryBridgeFleet",
                "StoryBridgeTesting",
                // Headless Chromium, for the fleet dashboard's test.
                "StoryBridgeScripts",
                // The collector the idle reset test's serve uploads to.
                "StoryIoTCollector",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                // The webhook tests' receiver on loopback.
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: strictSettings
        ),
    ]
)
