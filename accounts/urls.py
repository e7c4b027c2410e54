from django.urls import path

from accounts import apis, signup, views

app_name = "accounts"
# A player's public page (`accounts:player`) gathers games and ratings: `azul_site/urls.py` adds
# it to these names, from `azul_site/players.py`.

urlpatterns = [
    path("settings/", views.settings_view, name="settings"),
    path("settings/token/", views.token_create_view, name="token_create"),
    path("settings/token/revoke/", views.token_revoke_view, name="token_revoke"),
    path(
        "accounts/verification/resend/",
        views.verification_resend_view,
        name="verification_resend",
    ),
    path("api/me/", apis.MeApi.as_view(), name="api_me"),
    path("api/players/", apis.PlayerSearchApi.as_view(), name="api_players"),
    path("api/blocks/", apis.BlockListApi.as_view(), name="api_blocks"),
    path("api/blocks/<str:username>/", apis.BlockDetailApi.as_view(), name="api_block"),
    path("settings/blocks/", views.block_create_view, name="block_create"),
    path("settings/blocks/remove/", views.block_delete_view, name="block_delete"),
    path("api/following/", apis.FollowingListApi.as_view(), name="api_following"),
    path("api/following/<str:username>/", apis.FollowingDetailApi.as_view(), name="api_follow"),
    path("settings/following/", views.follow_create_view, name="follow_create"),
    path("settings/following/remove/", views.follow_delete_view, name="follow_delete"),
]

# allauth's pages that the site serves its own way, under allauth's URLs and names:
# `azul_site/urls.py` puts them before allauth's.
allauth_pages = [
    path("signup/", signup.SignupView.as_view(), name="account_signup"),
]
