"""Server plumbing shared by gno's two HTTP servers, `gno serve` and `gno service serve`.

Binding the socket before anything is announced (`listen`), the Host and Origin checks every
gno server applies (`guard`), the JSON-body rule (`content_type`) and the offline `/docs` page
(`api_docs`). Nothing here knows a capability, an engine or a tenant: each server passes the
renderer of its own error body, so one rule has one implementation whatever the surface.
"""
