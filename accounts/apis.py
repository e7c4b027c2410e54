from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView


class MeApi(APIView):
    class OutputSerializer(serializers.Serializer):
        username = serializers.CharField()
        display_name = serializers.CharField()

    @extend_schema(responses=OutputSerializer)
    def get(self, request: Request) -> Response:
        # The signed-in user always comes with their profile (accounts.models.UserManager).
        data = {
            "username": request.user.get_username(),
            "display_name": request.user.profile.display_name,
        }
        return Response(self.OutputSerializer(data).data)
