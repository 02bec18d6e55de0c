"""Users for the admin tests: curators, editors and people with no role."""

from django.contrib.auth.models import Group, Permission, User

from errorkb.kb.roles import GROUPS as ROLES


def role(name: str) -> Group:
    """The group the roles migration made, remade as it defines it if a flush emptied it.

    A transactional test's flush empties the groups table but not the migration
    history, so after one the groups are gone for the rest of the run.
    """
    group, created = Group.objects.get_or_create(name=name)
    if created:
        for app_label, codename in ROLES[name]:
            group.permissions.add(
                Permission.objects.get(content_type__app_label=app_label, codename=codename)
            )
    return group


def make_user(username: str, *groups: str, staff: bool = True, password: str = "") -> User:
    password = password or f"{username}-password"
    user = User.objects.create_user(username, password=password, is_staff=staff)
    user.groups.set([role(name) for name in groups])
    return User.objects.get(pk=user.pk)  # a fresh object: no stale permission cache


def curator(username: str = "curator", **kwargs) -> User:
    return make_user(username, "Curators", **kwargs)


def editor(username: str = "editor", **kwargs) -> User:
    return make_user(username, "Editors", **kwargs)
