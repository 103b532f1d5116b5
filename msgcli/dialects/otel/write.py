WRITER = None
