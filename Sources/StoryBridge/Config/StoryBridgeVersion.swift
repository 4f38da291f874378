/// The version of this storybridge build.
public enum StoryBridgeVersion {
    public static let current = "0.1.0"
}
