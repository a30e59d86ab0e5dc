"""Quire's guard in LibreOffice's Universal Content Broker: a UNO component that runs inside soffice.

resources/uno_worker.py loads this module into soffice through LibreOffice's Python component loader
(python3-uno), so that every URL lookup is checked in soffice's own process rather than with a round
trip to the worker. Every URL LibreOffice opens goes through the broker, which hands it to the
provider registered for its scheme; the worker puts these in place of the originals:

- org.quire.FileGuard for "file": a path opens only below the folders it is given (LibreOffice's
  installation, the worker's profile and temp folder, and the folder of the job that runs); anything
  else, a linked image or OLE object or section elsewhere on the server, is refused.
- org.quire.RefusingProvider for the network schemes (http, https, ftp, WebDAV, CMIS, ...): refused.

Both take their settings through XInitialization.initialize:
    FileGuard:        ("provider", <the original file provider>, root, ...)  once;
                      ("job", folder, ...)  before a job, ("job",) after it.
    RefusingProvider: (scheme,)
"""

import os
import sys

import uno
import unohelper
from com.sun.star.lang import XInitialization
from com.sun.star.ucb import IllegalIdentifierException, XContentProvider


def log(message):
    sys.stderr.write("quire ucb_guard: %s\n" % message)
    sys.stderr.flush()


def normalized(path):
    return os.path.normpath(os.path.abspath(path))


def file_url_path(url):
    """The local path of a file URL (no host but localhost), normalised ('..' resolved), or None."""
    try:
        path = uno.fileUrlToSystemPath(url)
    except Exception:
        return None
    if not path.startswith("/") or "\0" in path:
        return None
    return normalized(path)


def within(path, roots):
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


class FileGuard(unohelper.Base, XContentProvider, XInitialization):
    def __init__(self, context, *args):
        self.inner = None
        self.roots = ()
        self.job_roots = ()

    def initialize(self, arguments):
        kind = arguments[0] if arguments else None
        if kind == "provider":
            self.inner = arguments[1]
            self.roots = tuple(normalized(root) for root in arguments[2:])
        elif kind == "job":
            self.job_roots = tuple(normalized(root) for root in arguments[1:])

    def queryContent(self, identifier):
        url = identifier.getContentIdentifier()
        path = file_url_path(url)
        if self.inner is None or path is None or not (within(path, self.roots) or within(path, self.job_roots)):
            log("refused %s" % url[:300])
            raise IllegalIdentifierException("file URLs outside the document are not available to converted documents", self)
        return self.inner.queryContent(identifier)

    def compareContentIds(self, first, second):
        return self.inner.compareContentIds(first, second)


class RefusingProvider(unohelper.Base, XContentProvider, XInitialization):
    def __init__(self, context, *args):
        self.scheme = "?"

    def initialize(self, arguments):
        if arguments:
            self.scheme = str(arguments[0])

    def queryContent(self, identifier):
        log("refused %s" % identifier.getContentIdentifier()[:300])
        raise IllegalIdentifierException("%s URLs are not available to converted documents" % self.scheme, self)

    def compareContentIds(self, first, second):
        a, b = first.getContentIdentifier(), second.getContentIdentifier()
        return (a > b) - (a < b)


g_ImplementationHelper = unohelper.ImplementationHelper()
g_ImplementationHelper.addImplementation(FileGuard, "org.quire.FileGuard", ("org.quire.FileGuard",))
g_ImplementationHelper.addImplementation(RefusingProvider, "org.quire.RefusingProvider", ("org.quire.RefusingProvider",))
