"""The files bgreview ships (nets, match equity tables, samples), installed as the package ``analyzer._data``.

Read them through :mod:`analyzer._resources`, never by a path.
"""
