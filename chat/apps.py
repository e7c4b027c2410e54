from django.apps import AppConfig


class ChatConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "chat"

    def ready(self) -> None:
        from django.db.models.signals import post_delete, post_save

        from accounts.models import Block
        from chat import emails, panels
        from chat.records import export_addition
        from chat.services import block_changed
        from core import slots

        # The chat panel on the board page, its settings, and the chat at a replay's position
        # (`core.slots`): games imports nothing of chat.
        slots.game_page_panels.connect(panels.game_page_panel)
        slots.settings_page_panels.connect(panels.settings_page_panel)
        slots.replay_position_panels.connect(panels.replay_position_panel)
        # The new messages in a "your turn" email, and in a chat email (`core.slots`).
        slots.your_turn_email_parts.connect(emails.your_turn_part)
        slots.chat_message_email_parts.connect(emails.chat_message_part)
        # The chat in a game's export, when its players allowed it (`core.slots`).
        slots.game_export_additions.connect(export_addition)
        # A block hides the blocked player's messages both ways: their panels change.
        post_save.connect(block_changed, sender=Block, dispatch_uid="chat_block_saved")
        post_delete.connect(block_changed, sender=Block, dispatch_uid="chat_block_deleted")
