from django.apps import AppConfig


class ChatConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "chat"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from accounts.models import Block
        from chat.emails import email_parts_register
        from chat.panels import panels_register
        from chat.records import export_addition
        from chat.services import block_changed
        from core.additions import addition_register

        # The chat panel on the board page (`core.panels`): games imports nothing of chat.
        panels_register()
        # The new messages in a "your turn" email (`core.email_parts`).
        email_parts_register()
        # The chat in a game's export, when its players allowed it (`core.additions`).
        addition_register("game_export", export_addition)
        # A block hides the blocked player's messages both ways: their panels change.
        post_save.connect(block_changed, sender=Block, dispatch_uid="chat_block_saved")
        post_delete.connect(block_changed, sender=Block, dispatch_uid="chat_block_deleted")
