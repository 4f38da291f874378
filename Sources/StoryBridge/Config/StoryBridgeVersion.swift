/// The version of this storybridge build.
public enum StoryBridgeVersion {
    /// This build's version, as `getAppInfo` reports it by default.
    public static let current = "0.1.0"
}
