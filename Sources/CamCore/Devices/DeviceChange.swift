// SPDX-License-Identifier: MIT
/// A hot-plug event of a capture device (SPEC S24).
package enum DeviceChange: Sendable {
    case added(DeviceInfo)
    case removed(DeviceInfo)
    /// The camera permission changed (S35: the camera portal's answer),
    /// with why.
    case permission(CameraPermission, String)
}
