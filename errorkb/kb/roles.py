"""The roles: curators edit and submit entries, editors also publish and manage the catalog.

Declared once: the roles migration makes the groups from these lists, and the tests
remake them from the same lists.
"""

CURATOR_PERMISSIONS = [
    ("kb", "view_errorentry"),
    ("kb", "add_errorentry"),
    ("kb", "change_errorentry"),
    ("kb", "submit_errorentry"),
    ("kb", "view_repository"),
    ("kb", "view_tag"),
    ("kb", "add_tag"),
    ("kb", "view_report"),
    ("kb", "change_report"),
    ("verification", "view_verificationrun"),
    ("verification", "view_scenario"),
]
EDITOR_PERMISSIONS = CURATOR_PERMISSIONS + [
    ("kb", "publish_errorentry"),
    ("kb", "add_repository"),
    ("kb", "change_repository"),
    ("kb", "change_tag"),
    ("kb", "add_datasetupload"),
    ("kb", "view_datasetupload"),
]
GROUPS = {"Curators": CURATOR_PERMISSIONS, "Editors": EDITOR_PERMISSIONS}
