"""Untrusted text: the threat scan and the directive reader that keeps injected orders out of memory."""
