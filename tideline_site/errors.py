"""Friendly error pages: a person sees what happened and where to go, never a traceback."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def _page(request: HttpRequest, status: int, title: str, message: str) -> HttpResponse:
    return render(request, "error.html", {"title": title, "message": message}, status=status)


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _page(request, 404, "Not found", "There is nothing here, or it is not yours to see.")


def forbidden(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _page(request, 403, "Not allowed", "Your role in this workspace does not allow that.")


def server_error(request: HttpRequest) -> HttpResponse:
    # No request context processors here: the failure may be in them.
    html = (
        "<!doctype html><title>Something went wrong</title><main style='font-family:sans-serif;margin:3rem'>"
        "<h1>Something went wrong</h1><p>The error was logged. Nothing you entered was lost; "
        "please try again, or go back to <a href='/'>the console</a>.</p></main>"
    )
    return HttpResponse(html, status=500)
