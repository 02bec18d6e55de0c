"""Users for the admin tests: curators, editors and people with no role."""

from django.contrib.auth.models import Group, User


def make_user(username: str, *groups: str, staff: bool = True) -> User:
    user = User.objects.create_user(username, password=f"{username}-password", is_staff=staff)
    user.groups.set(Group.objects.filter(name__in=groups))
    return User.objects.get(pk=user.pk)  # a fresh object: no stale permission cache


def curator(username: str = "curator") -> User:
    return make_user(username, "Curators")


def editor(username: str = "editor") -> User:
    return make_user(username, "Editors")
