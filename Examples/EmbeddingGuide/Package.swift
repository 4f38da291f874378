// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "GreetingHost",
    platforms: [.macOS(.v14)],
    dependencies: [
        // A path dependency is named by its folder unless you give it a name: with `name:`, the
        // `package:` below is "storybridge" wherever the clone is and whatever its folder is called.
        .package(name: "storybridge", path: "../.."),
        // Only for `import ServiceLifecycle` (a service of your own beside the server).
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    ],
    targets: [
        .executableTarget(
            name: "greeting-host",
            dependencies: [
                .product(name: "StoryBridge", package: "storybridge"),
                .product(name: "StoryBridgeServer", package: "storybridge"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/GreetingHost"
        )
    ]
)
