import Foundation
import Testing

@testable import StoryBridgeServer

/// `HostMetrics.figures()`: the counters and gauges a fleet beat carries (docs/design/FLEET.md §4.3).
@Suite("Metrics as beat figures")
struct HostMetricsFiguresTests {
    @Test("labelled series are summed per name; histograms are left out")
    func summed() {
        let text = """
            # TYPE storybridge_requests_total counter
            storybridge_requests_total{command="getAppInfo",status="200"} 3
            storybridge_requests_total{command="(unknown)",status="400"} 1
            # TYPE storybridge_connected_viewers gauge
            storybridge_connected_viewers 2
            # TYPE storybridge_request_duration_seconds histogram
            storybridge_request_duration_seconds_bucket{command="getAppInfo",le="0.001"} 3
            storybridge_request_duration_seconds_count{command="getAppInfo"} 3
            # TYPE storybridge_upload_failures_total counter
            storybridge_upload_failures_total 0
            """
        let figures = HostMetrics.figures(ofPrometheusText: text)
        #expect(figures == ["storybridge_requests_total": 4, "storybridge_connected_viewers": 2, "storybridge_upload_failures_total": 0])
    }

    @Test("a fresh host's figures hold its gauges and counters")
    func freshHost() {
        let metrics = HostMetrics()
        metrics.viewerConnected()
        metrics.refused(reason: "token")
        metrics.refused(reason: "host")
        let figures = metrics.figures()
        #expect(figures["storybridge_connected_viewers"] == 1)
        #expect(figures["storybridge_refused_requests_total"] == 2)
        #expect(figures["storybridge_storage_failing"] == 0)
    }
}
