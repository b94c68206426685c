import Testing
@testable import CamCore
