#if canImport(Glibc)
import Glibc
#endif

/// A new directory of the test's own under /tmp (a state directory, a history).
func temporaryDirectory(_ prefix: String) -> String {
    var template = Array("/tmp/\(prefix).XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
}
